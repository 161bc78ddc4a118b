import { createMemoryClient, type ChatMessage, type TranscriptRole } from '@flowmesh/contracts';
import type { MeshClient } from '@flowmesh/messaging';

/** Where a chat step's messages go: the run's conversation in its flow, as the step's identity. */
export interface ChatTurn {
  readonly token: string;
  readonly workspace: string;
  readonly flowPath: string;
  /** The run's memory id: the transcript follows it, even when the step keeps its memory under its own. */
  readonly conversation: string;
  readonly jobId: string;
  readonly stepId: string;
}

/**
 * Appends what a chat step produced to its conversation's transcript, in order: the model's text
 * answers (`assistant`) and the tools' results (`tool`); the user's turn is the run's, written
 * when the run started. Tool calls without text and reasoning are not transcript lines.
 */
export async function appendToTranscript(
  mesh: MeshClient,
  turn: ChatTurn,
  record: readonly ChatMessage[],
): Promise<void> {
  const client = createMemoryClient(mesh);
  for (const line of transcriptLines(record)) {
    await client.appendConversationMessage({
      actor: { token: turn.token },
      workspace: turn.workspace,
      flowPath: turn.flowPath,
      conversation: turn.conversation,
      jobId: turn.jobId,
      stepId: turn.stepId,
      ...line,
    });
  }
}

function transcriptLines(record: readonly ChatMessage[]): { role: TranscriptRole; content: string }[] {
  const lines: { role: TranscriptRole; content: string }[] = [];
  for (const message of record) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    const text = message.content
      .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
      .map((part) => part.text)
      .join('');
    if (text) lines.push({ role: message.role, content: text });
  }
  return lines;
}
