import { JobError } from '../ports/script-runner.port.js';

/** The runners' own failures, worded once so every language reports them alike. */
export const jobErrors = {
  timeout: (timeoutMs: number): JobError =>
    new JobError(
      'Timeout',
      `the job did not finish within its time limit of ${formatMs(timeoutMs)} and was stopped`,
    ),
  canceled: (): JobError => new JobError('Canceled', 'the job was canceled'),
  memory: (memoryMb: number, detail?: string): JobError =>
    new JobError(
      'MemoryLimitExceeded',
      `the job exceeded its memory limit of ${memoryMb} MiB${detail ? ` (${detail})` : ''}`,
    ),
  resultTooLarge: (bytes: number, maxBytes: number): JobError =>
    new JobError(
      'ResultTooLarge',
      `the result is ${formatBytes(bytes)}, over the limit of ${formatBytes(maxBytes)} (FLOWMESH_MAX_RESULT_BYTES)`,
    ),
  notJson: (detail: string): JobError => new JobError('ExecutionErr', `the result is not JSON: ${detail}`),
} as const;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024)
    return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(bytes % 1024 === 0 ? 0 : 1)} KiB`;
  return `${bytes} bytes`;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
