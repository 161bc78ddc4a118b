import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

const STACK_FRAME = /\n\s+at /;

/**
 * Nest's own logs (bootstrap, route mapping, exceptions) through our pino logger, so the
 * whole process writes one JSON format. Nest calls `log(message, context)` and
 * `error(message, stack, context)`; the context becomes a field, not a prefix.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, true);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params, true);
  }

  private write(level: Level, message: unknown, params: unknown[], mayCarryStack = false): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const rest = [...params];
    const fields: Record<string, unknown> = {};
    if (rest.length > 0 && typeof rest[rest.length - 1] === 'string') fields.context = rest.pop();
    if (mayCarryStack && isStack(rest[0])) fields.stack = rest.shift();
    else if (mayCarryStack && rest[0] === undefined && rest.length > 0) rest.shift();
    if (rest.length > 0) fields.details = rest;

    if (message instanceof Error) {
      this.logger[level]({ ...fields, err: message }, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.logger[level](fields, String(message));
    }
  }
}

function isStack(value: unknown): value is string {
  return typeof value === 'string' && STACK_FRAME.test(value);
}
