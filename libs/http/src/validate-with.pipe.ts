import { validationError } from '@flowmesh/contracts';
import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

/**
 * `value` parsed by a contract schema; a bad one is VALIDATION_FAILED naming `what`, with every
 * problem and its path.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what = 'request body',
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(what, result.error);
  return result.data;
}

/**
 * `@Body(validateWith(Schema)) body: z.output<typeof Schema>`, `@Query(validateWith(Schema, 'query'))`:
 * the body (or a query, a param) parsed by a contract schema, as `parseWith` does.
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  what = 'request body',
): PipeTransform<unknown, z.output<S>> {
  return {
    transform: (value: unknown): z.output<S> => parseWith(schema, value, what),
  };
}
