import { createMemoryClient } from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';

/** memory-service keeps the transcript; a chat run does not wait on it for long. */
const APPEND_TIMEOUT_MS = 3_000;

/**
 * The user's turn of a chat run (a saved flow with `chat_input_enabled`, started with a memory
 * id): its `user_message` (or its arguments) goes first into the conversation's transcript, as
 * the caller, before the run's agent steps add theirs. A transcript that cannot be written is
 * logged; the run goes on.
 */
@Injectable()
export class ChatTranscript {
  private readonly log = new Logger(ChatTranscript.name);

  constructor(private readonly mesh: MeshClient) {}

  async userTurn(turn: {
    readonly token: string;
    readonly workspace: string;
    readonly flowPath: string;
    readonly conversation: string;
    readonly jobId: string;
    readonly args: Record<string, unknown>;
  }): Promise<void> {
    const message = turn.args.user_message;
    try {
      await createMemoryClient(this.mesh).appendConversationMessage(
        {
          actor: { token: turn.token },
          workspace: turn.workspace,
          flowPath: turn.flowPath,
          conversation: turn.conversation,
          jobId: turn.jobId,
          role: 'user',
          content: typeof message === 'string' ? message : JSON.stringify(turn.args),
        },
        { timeoutMs: APPEND_TIMEOUT_MS },
      );
    } catch (error) {
      this.log.warn(
        `the user's turn of chat run ${turn.jobId} was not added to its conversation: ${(error as Error).message}`,
      );
    }
  }
}
