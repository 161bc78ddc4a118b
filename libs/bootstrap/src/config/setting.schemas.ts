import { SubjectSpace } from '@flowmesh/contracts';
import { z } from 'zod';

/**
 * Building blocks for settings read from the environment. Every message completes the sentence
 * "<SETTING> ...", so a problem reads `NATS_URL must be a nats:// URL`.
 */
const required = { error: () => 'is required' };

export const text = () => z.string(required).min(1, 'must not be empty');

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** One NATS URL or a comma-separated list of them (a cluster's seed servers). */
export const natsUrl = () =>
  text().refine(
    (value) => value.split(',').every((part) => hasProtocol(part.trim(), ['nats:', 'tls:', 'ws:', 'wss:'])),
    'must be a nats:// URL (or a comma-separated list of them)',
  );

export const postgresUrl = () =>
  text().refine((value) => hasProtocol(value, ['postgres:', 'postgresql:']), 'must be a postgres:// URL');

export const httpUrl = () =>
  text().refine((value) => hasProtocol(value, ['http:', 'https:']), 'must be an http:// or https:// URL');

/** 0 asks the OS for a free port (tests use it). */
export const port = () =>
  text()
    .regex(/^\d+$/, 'must be a port number (0-65535)')
    .transform(Number)
    .refine((value) => value <= 65_535, 'must be a port number (0-65535)');

export const positiveInt = () =>
  text()
    .regex(/^[1-9]\d*$/, 'must be a positive whole number')
    .transform(Number);

export const wholeNumber = () =>
  text()
    .regex(/^(0|[1-9]\d*)$/, 'must be a whole number (0 or more)')
    .transform(Number);

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, {
    error: (issue) => (issue.input === undefined ? 'is required' : `must be one of ${values.join(', ')}`),
  });

/** Comma-separated tokens, trimmed, empties dropped: `a, b` -> ['a', 'b']. */
export const list = () =>
  text()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    )
    .refine((items) => items.length > 0, 'must list at least one value');

export const subjectPrefix = () =>
  text().refine((value) => {
    try {
      new SubjectSpace(value);
      return true;
    } catch {
      return false;
    }
  }, "must be tokens of letters, digits, '-' or '_' separated by '.'");
