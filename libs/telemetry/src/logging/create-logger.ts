import { hostname } from 'node:os';
import { pino, type DestinationStream, type Logger } from 'pino';
import { secretRedactPaths } from './redact-paths.js';
import { REDACTED, scrubJsonLine } from './secret-scrubber.js';
import { traceContextFields } from './trace-context.mixin.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type { Logger } from 'pino';

export interface LoggerOptions {
  service: string;
  level?: LogLevel;
  /** Where JSON lines go; stdout by default. Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Extra fields on every line (e.g. `{ version, role: 'worker' }`). */
  bindings?: Record<string, unknown>;
}

/**
 * JSON lines with `time`, `level` (a name, not a number), `service`, `msg` and, inside a
 * span, `trace_id`/`span_id`. Secrets are removed twice: by key paths (structured) and by a
 * scrub of the finished line (secret members at any depth and secret-looking values in
 * messages and stack traces).
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service, ...options.bindings, pid: process.pid, hostname: hostname() },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: traceContextFields,
      redact: { paths: secretRedactPaths(), censor: REDACTED },
      hooks: { streamWrite: scrubJsonLine },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
