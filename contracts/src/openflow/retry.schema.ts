import { z } from 'zod';
import { named } from './openflow.registry.js';

export const RetryIfSchema = named(
  'RetryIf',
  'Conditional retry based on error or result.',
  z.looseObject({
    expr: z.string(),
  }),
);

export const RetrySchema = named(
  'Retry',
  'Retry configuration for failed module executions.',
  z.looseObject({
    constant: z
      .looseObject({
        attempts: z.int().optional(),
        seconds: z.int().optional(),
      })
      .optional(),
    exponential: z
      .looseObject({
        attempts: z.int().optional(),
        multiplier: z.int().optional(),
        seconds: z.int().min(1).optional(),
        random_factor: z.int().min(0).max(100).optional(),
      })
      .optional(),
    retry_if: RetryIfSchema.optional(),
  }),
);

export const StopAfterIfSchema = named(
  'StopAfterIf',
  'Early termination condition for a module.',
  z.looseObject({
    skip_if_stopped: z.boolean().optional(),
    expr: z.string(),
    error_message: z.string().nullable().optional(),
    error_include_result: z.boolean().optional(),
  }),
);

export type RetryIf = z.infer<typeof RetryIfSchema>;
export type Retry = z.infer<typeof RetrySchema>;
export type StopAfterIf = z.infer<typeof StopAfterIfSchema>;
