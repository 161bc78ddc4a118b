import type { Logger } from '@flowmesh/telemetry';

export interface ExitOnSignalsOptions {
  readonly logger: Logger;
  /** The whole graceful stop must fit in this; past it the process exits anyway. */
  readonly timeoutMs: number;
  readonly stop: () => Promise<void>;
  readonly exit?: (code: number) => void;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * SIGTERM (Kubernetes, `flowmesh start`) and SIGINT (Ctrl-C) stop the service gracefully and
 * exit 0; if stopping takes longer than the timeout, it says so and exits 1. A second signal
 * while stopping changes nothing: the deadline already bounds the wait.
 */
/** Returns a function that removes the handlers again. */
export function exitOnSignals(options: ExitOnSignalsOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.logger.info({ signal }, `${signal} received while stopping; still stopping`);
      return;
    }
    stopping = true;
    options.logger.info({ signal }, `${signal} received; stopping`);
    const deadline = setTimeout(() => {
      options.logger.error(
        { timeoutMs: options.timeoutMs },
        `shutdown did not finish within ${options.timeoutMs} ms (FLOWMESH_SHUTDOWN_TIMEOUT_MS); forcing exit`,
      );
      exit(1);
    }, options.timeoutMs);
    options.stop().then(
      () => {
        clearTimeout(deadline);
        options.logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(deadline);
        options.logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}
