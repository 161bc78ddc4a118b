import { z } from 'zod';
import { InputTransformSchema } from './input-transform.schema.js';
import { JsonObjectSchema } from './json-object.schema.js';
import { named } from './openflow.registry.js';

export const SkipIfSchema = named(
  'SkipIf',
  "Skips the step when expr, over 'flow_input' and 'results.<step_id>', returns true.",
  z.looseObject({
    expr: z.string(),
  }),
);

export const ModuleMockSchema = named(
  'ModuleMock',
  'Mock configuration for testing without executing the actual step.',
  z.looseObject({
    enabled: z.boolean().optional(),
    return_value: z.unknown().optional(),
  }),
);

export const SuspendSchema = named(
  'Suspend',
  'Approval/resume configuration: the step waits for user input before the flow continues.',
  z.looseObject({
    required_events: z.int().optional(),
    timeout: z.int().optional(),
    resume_form: z
      .looseObject({
        schema: JsonObjectSchema.optional(),
      })
      .optional(),
    user_auth_required: z.boolean().optional(),
    user_groups_required: InputTransformSchema.optional(),
    self_approval_disabled: z.boolean().optional(),
    hide_cancel: z.boolean().optional(),
    continue_on_disapprove_timeout: z.boolean().optional(),
    skin: z.enum(['detailed', 'minimal']).optional(),
  }),
);

export const DebouncingSchema = named(
  'Debouncing',
  "Debounce configuration for a step's executions across flow runs.",
  z.looseObject({
    debounce_delay_s: z.int().optional(),
    debounce_key: z.string().optional(),
    debounce_args_to_accumulate: z.array(z.string()).optional(),
    max_total_debouncing_time: z.int().optional(),
    max_total_debounces_amount: z.int().optional(),
  }),
);

/** `domain:action[:resource]`, e.g. `oidc:write`: a token scope a step or tool can only narrow. */
export const JobTokenScopeSchema = z
  .string()
  .regex(/^[^:\s]+:[^:\s]+(:\S+)?$/, { error: 'expected a scope domain:action[:resource], e.g. oidc:write' });

export const JobTokenScopesSchema = z.array(JobTokenScopeSchema).nullable();

export type SkipIf = z.infer<typeof SkipIfSchema>;
export type ModuleMock = z.infer<typeof ModuleMockSchema>;
export type Suspend = z.infer<typeof SuspendSchema>;
export type Debouncing = z.infer<typeof DebouncingSchema>;
