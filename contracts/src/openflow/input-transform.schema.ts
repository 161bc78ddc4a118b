import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import { named } from './openflow.registry.js';

export const StaticTransformSchema = named(
  'StaticTransform',
  "Static value passed directly to the step. Resources are written '$res:path/to/resource'.",
  z.looseObject({
    value: z.unknown().optional(),
    type: z.literal('static'),
  }),
);

export const JavascriptTransformSchema = named(
  'JavascriptTransform',
  "JavaScript expression evaluated at runtime over 'results', 'flow_input' and, in loops, 'flow_input.iter'.",
  z.looseObject({
    expr: z.string(),
    type: z.literal('javascript'),
  }),
);

export const AiTransformSchema = named(
  'AiTransform',
  'Value resolved by the AI runtime for this input.',
  z.looseObject({
    type: z.literal('ai'),
  }),
);

export const InputTransformSchema = named(
  'InputTransform',
  'Maps an input parameter of a step: a static value, a JavaScript expression or an AI-resolved value.',
  discriminatedUnionOf('type', 'transform type', [
    StaticTransformSchema,
    JavascriptTransformSchema,
    AiTransformSchema,
  ]),
);

/**
 * A transform, or a plain number: the older spelling of a module's `timeout` and a loop's
 * `parallelism`, which Windmill still reads (kept as written; the engine reads the number as is).
 */
export const NumberOrTransformSchema = z.union([z.number(), InputTransformSchema]);
export type NumberOrTransform = z.infer<typeof NumberOrTransformSchema>;

/** Parameter name to transform: the arguments of a script, flow or agent tool. */
export const InputTransformsSchema = z.record(z.string(), InputTransformSchema);

export type StaticTransform = z.infer<typeof StaticTransformSchema>;
export type JavascriptTransform = z.infer<typeof JavascriptTransformSchema>;
export type AiTransform = z.infer<typeof AiTransformSchema>;
export type InputTransform = z.infer<typeof InputTransformSchema>;
export type InputTransforms = z.infer<typeof InputTransformsSchema>;
