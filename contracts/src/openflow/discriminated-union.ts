import { z } from 'zod';
import type * as core from 'zod/v4/core';
import { describeValue } from './describe-value.js';

type Discriminable = readonly [core.$ZodTypeDiscriminable, ...core.$ZodTypeDiscriminable[]];

/**
 * A discriminated union whose error names the valid choices (`unknown module type "x";
 * expected one of rawscript, script, ...`) instead of a wall of per-variant errors.
 */
export function discriminatedUnionOf<const Disc extends string, const Types extends Discriminable>(
  discriminator: Disc,
  noun: string,
  options: Types,
) {
  return z.discriminatedUnion(discriminator, options, {
    error: (issue) => {
      if (issue.code !== 'invalid_union' || !('options' in issue)) return undefined;
      const choices = `expected one of ${((issue.options ?? []) as unknown[]).join(', ')}`;
      const value = (issue.input as Record<string, unknown> | undefined)?.[discriminator];
      return value === undefined
        ? `required; ${choices}`
        : `unknown ${noun} ${describeValue(value)}; ${choices}`;
    },
  });
}
