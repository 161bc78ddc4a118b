import { JobError } from '../../ports/script-runner.port.js';
import { jobErrors } from '../job-errors.js';
import type { SubprocessOutcome } from './subprocess.js';

/**
 * What a job's wrapper (python3, TypeScript process) writes on fd 4; `preprocessed`, the
 * arguments its preprocessor gave the entrypoint, when it ran one (`ScriptJob.preprocess`).
 */
export type WrapperReply = (
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: { name: string; message: string; stack?: string } }
) & { readonly preprocessed?: Record<string, unknown> };

/**
 * The job's result from its wrapper's reply, or the `JobError` it ends with: the result over the
 * limit, no reply at all (`noReply`, from how the process ended), or the script's own error
 * (`scriptError` may word it; otherwise its name, message and stack as they are).
 */
export function wrapperResult(
  outcome: SubprocessOutcome,
  maxResultBytes: number,
  noReply: () => JobError,
  scriptError?: (error: { name: string; message: string }) => JobError | undefined,
  onPreprocessed?: (args: Record<string, unknown>) => void,
): unknown {
  if (outcome.resultOverflow) throw jobErrors.resultTooLarge(outcome.resultBytes, maxResultBytes);
  if (outcome.result === '') throw noReply();
  const reply = JSON.parse(outcome.result) as WrapperReply;
  if (reply.preprocessed !== undefined) onPreprocessed?.(reply.preprocessed);
  if (!reply.ok) {
    throw (
      scriptError?.(reply.error) ?? new JobError(reply.error.name, reply.error.message, reply.error.stack)
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(reply.result) ?? 'null');
  if (bytes > maxResultBytes) throw jobErrors.resultTooLarge(bytes, maxResultBytes);
  return reply.result;
}
