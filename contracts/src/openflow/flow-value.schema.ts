import { z } from 'zod';
import { FlowGroupSchema, FlowNoteSchema } from './flow-annotations.schema.js';
import { FlowModuleSchema } from './flow-module.schema.js';
import { MultitaskStrategySchema } from '../memory/memory-lock.schema.js';
import { JsonObjectSchema } from './json-object.schema.js';
import { named } from './openflow.registry.js';

export const FlowValueSchema = named(
  'FlowValue',
  'The flow structure: its modules and optional preprocessor and failure handlers.',
  z.looseObject({
    modules: z.array(FlowModuleSchema),
    failure_module: FlowModuleSchema.optional(),
    preprocessor_module: FlowModuleSchema.optional(),
    same_worker: z.boolean().optional(),
    preserve_step_tags: z.boolean().optional(),
    concurrent_limit: z.number().optional(),
    concurrency_key: z.string().optional(),
    concurrency_time_window_s: z.number().optional(),
    debounce_delay_s: z.int().optional(),
    debounce_key: z.string().optional(),
    debounce_args_to_accumulate: z.array(z.string()).optional(),
    max_total_debouncing_time: z.int().optional(),
    max_total_debounces_amount: z.int().optional(),
    skip_expr: z.string().optional(),
    cache_ttl: z.number().optional(),
    cache_ignore_s3_path: z.boolean().optional(),
    delete_after_secs: z.int().optional(),
    flow_env: z.record(z.string(), z.unknown()).optional(),
    priority: z.number().optional(),
    early_return: z.string().optional(),
    chat_input_enabled: z.boolean().optional(),
    /**
     * What a run does when another run uses the memory of one of its agent steps (the same memory
     * id and step): `enqueue` (default), `reject` or `interrupt`; a run may override it.
     */
    multitask_strategy: MultitaskStrategySchema.optional(),
    notes: z.array(FlowNoteSchema).optional(),
    groups: z.array(FlowGroupSchema).optional(),
  }),
);

/** `u/<user>`, `g/<group>`, or a bare email when the username is itself email-shaped. */
export const OnBehalfOfSchema = z.string().regex(/^(?:[ug]\/[^/\s]+|[^@\s/]+@[^@\s/]+)$/, {
  error: 'expected u/<username>, g/<group> or an email address',
});

export const OpenFlowSchema = named(
  'OpenFlow',
  'Top-level flow definition: metadata, input schema and the flow structure.',
  z.looseObject({
    summary: z.string(),
    description: z.string().optional(),
    value: FlowValueSchema,
    schema: JsonObjectSchema.optional(),
    on_behalf_of_email: z.string().optional(),
    on_behalf_of: OnBehalfOfSchema.optional(),
  }),
);

export type FlowValue = z.infer<typeof FlowValueSchema>;
export type OpenFlow = z.infer<typeof OpenFlowSchema>;
