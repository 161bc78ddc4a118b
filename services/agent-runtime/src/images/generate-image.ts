import type {
  AgentAction,
  ChatMessage,
  GenerateImageReply,
  GenerateImageRequest,
  UrlPart,
} from '@flowmesh/contracts';
import { FaultClassSchema, MeshError } from '@flowmesh/contracts';
import type { AgentBrain } from '../loop/agent-brain.js';
import type { AgentLoopOutcome } from '../loop/agent-loop.js';

/** Where a generated image goes: the object, and the signed link the gateway uploads it by. */
export interface ImageTarget {
  readonly bucket: string;
  readonly key: string;
  readonly uploadUrl: string;
}

/** What generating an image reaches outside through. */
export interface ImagePorts {
  target(): Promise<ImageTarget>;
  /** The step's attachments as links the gateway fetches (the pictures to start from). */
  links(): Promise<UrlPart[]>;
  generate(
    request: Omit<GenerateImageRequest, 'actor' | 'workspace'>,
    signal: AbortSignal,
  ): Promise<GenerateImageReply>;
  report(action: AgentAction, success: boolean): Promise<void>;
  log(message: string): void;
}

/** The name a generated image is given (Windmill's). */
export const GENERATED_IMAGE_FILENAME = 'generated_image.png';

/**
 * `output_type: image`: one model call that draws what the user message asks (the attachments are
 * the pictures to start from), stored in the workspace's attachment location, where a later step
 * can attach it. The output names the object as `user_attachments` takes it, and as Windmill's
 * `{s3, filename}`. Tools are not offered and the history is not sent: a drawing model is given
 * the prompt, as Windmill gives it; the exchange is kept in memory like a text answer.
 */
export async function generateImage(
  brain: AgentBrain,
  history: readonly ChatMessage[],
  ports: ImagePorts,
  signal: AbortSignal,
): Promise<AgentLoopOutcome> {
  const prompt = brain.userMessage ?? '';
  const record: ChatMessage[] = [
    { role: 'user', content: [{ type: 'text', text: prompt }, ...(brain.attachments ?? [])] },
  ];
  if (brain.tools.length > 0)
    ports.log(`image output: the step's ${brain.tools.length} tool(s) are not offered to an image model`);
  const [target, images] = await Promise.all([ports.target(), ports.links()]);
  let reply: GenerateImageReply;
  try {
    reply = await ports.generate(
      {
        provider: {
          kind: brain.provider.kind,
          resource: brain.provider.resource,
          model: brain.provider.model,
        },
        prompt,
        ...(brain.systemPrompt ? { system: brain.systemPrompt } : {}),
        ...(images.length > 0 ? { images } : {}),
        ...(brain.temperature !== undefined ? { temperature: brain.temperature } : {}),
        upload: { url: target.uploadUrl },
      },
      signal,
    );
  } catch (error) {
    // A provider's failure (classified) ends the step as a model error; the gateway refusing the
    // request itself (a provider that cannot draw) is the step's input error, thrown on.
    const details =
      error instanceof MeshError ? (error.details as { class?: unknown; fault?: unknown }) : undefined;
    const providerClass = details?.class;
    if (typeof providerClass !== 'string') throw error;
    const fault = FaultClassSchema.safeParse(details?.fault);
    return {
      success: false,
      error: {
        name: 'AgentModelError',
        message: (error as MeshError).message,
        class: providerClass,
        ...(fault.success ? { fault: fault.data } : {}),
      },
      messages: record,
      usage: { inputTokens: 0, outputTokens: 0 },
    };
  }
  const said = reply.text?.trim();
  const answer: ChatMessage = {
    role: 'assistant',
    content: [
      {
        type: 'text',
        text: `${said ? `${said}\n\n` : ''}[generated image ${target.bucket}/${target.key} (${reply.mediaType}, ${reply.bytes} bytes)]`,
      },
    ],
  };
  record.push(answer);
  return {
    success: true,
    // Reported with the step's outcome, as an agent's answer is.
    lastActions: [{ type: 'message', content: said || `generated image ${target.key}` }],
    output: { s3: target.key, filename: GENERATED_IMAGE_FILENAME, bucket: target.bucket, key: target.key },
    messages: record,
    usage: { ...reply.usage },
    // Memory keeps the exchange after the history, as a text answer's would be kept.
    context: [...history, ...record],
  };
}
