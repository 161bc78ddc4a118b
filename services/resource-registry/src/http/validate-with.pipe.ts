import { validationError } from '@flowmesh/contracts';
import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

/**
 * `@Body(validateWith(Schema)) body: z.output<typeof Schema>`: the body (or a param) parsed by a
 * contract schema; a bad one is VALIDATION_FAILED with every problem and its path.
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  what = 'request body',
): PipeTransform<unknown, z.output<S>> {
  return {
    transform(value: unknown): z.output<S> {
      const result = schema.safeParse(value);
      if (!result.success) throw validationError(what, result.error);
      return result.data;
    },
  };
}
