import { validationError } from '@flowmesh/contracts';
import type { PipeTransform } from '@nestjs/common';
import type { z } from 'zod';

/** `@Query(validateWith(Schema, 'query'))`: parsed by a schema; a bad value is VALIDATION_FAILED naming every problem. */
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
