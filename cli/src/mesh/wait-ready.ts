import type { ExitInfo } from './mesh-child.js';

export interface WaitReadyOptions {
  readonly timeoutMs: number;
  /** Resolves when the process exits: waiting stops at once instead of running into the timeout. */
  readonly exited: Promise<ExitInfo>;
  readonly pollIntervalMs?: number;
}

export class NotReadyError extends Error {
  constructor(
    message: string,
    readonly exit?: ExitInfo,
  ) {
    super(message);
    this.name = 'NotReadyError';
  }
}

/** Polls `url` until it answers 2xx; rejects when the process exits or the time is up. */
export async function waitForReady(url: string, options: WaitReadyOptions): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let exit: ExitInfo | undefined;
  void options.exited.then((info) => {
    exit = info;
  });
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (exit) throw new NotReadyError(`exited before it was ready (${describeExit(exit)})`, exit);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) return;
      lastProblem = `${url} answered ${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      lastProblem = `${url}: ${error instanceof Error ? error.message : String(error)}`;
    }
    await Promise.race([delay(options.pollIntervalMs ?? 150), options.exited]);
  }
  throw new NotReadyError(`not ready after ${options.timeoutMs} ms (${lastProblem})`);
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
