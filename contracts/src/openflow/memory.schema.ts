import { z } from 'zod';
import { discriminatedUnionOf } from './discriminated-union.js';
import { AiTransformSchema, JavascriptTransformSchema } from './input-transform.schema.js';
import { named } from './openflow.registry.js';

export const MemoryOffSchema = named(
  'MemoryOff',
  'No conversation memory; a step may supply its history in previous_messages.',
  z.looseObject({ kind: z.literal('off') }),
);

export const MemoryWindowSchema = named(
  'MemoryWindow',
  "Keeps the most recent messages of the memory named by the run's (or the step's) memory id.",
  z.looseObject({
    kind: z.literal('window'),
    context_length: z.int(),
  }),
);

export const MemoryAutoSchema = named(
  'MemoryAuto',
  "Deprecated, still read as written: the run's memory id, else memory_id here. Without context_length, or 0, it is off.",
  z.looseObject({
    kind: z.literal('auto'),
    context_length: z.int().optional(),
    memory_id: z.string().optional(),
  }),
  { deprecated: true },
);

export const MemoryCompactionSchema = named(
  'MemoryCompaction',
  'Keeps the whole memory, summarizing its older part as it approaches the context window of the model.',
  z.looseObject({
    kind: z.literal('compaction'),
    context_window: z.int().optional(),
  }),
);

export const MemoryMessageSchema = named(
  'MemoryMessage',
  'A single message in conversation history.',
  z.looseObject({
    role: z.enum(['user', 'assistant', 'system']),
    content: z.string(),
  }),
);

export const MemoryManualSchema = named(
  'MemoryManual',
  'Deprecated, still read as written. Move the step to off with previous_messages instead.',
  z.looseObject({
    kind: z.literal('manual'),
    messages: z.array(MemoryMessageSchema),
  }),
  { deprecated: true },
);

export const MemoryConfigSchema = named(
  'MemoryConfig',
  'Managed memory, stored by the mesh and replayed with each request, named by a memory id.',
  discriminatedUnionOf('kind', 'memory kind', [
    MemoryOffSchema,
    MemoryWindowSchema,
    MemoryCompactionSchema,
    MemoryAutoSchema,
    MemoryManualSchema,
  ]),
);

export const StaticMemoryTransformSchema = named(
  'StaticMemoryTransform',
  'Static memory configuration passed directly to the AI agent.',
  z.looseObject({
    value: MemoryConfigSchema,
    type: z.literal('static'),
  }),
);

export const MemoryTransformSchema = named(
  'MemoryTransform',
  'Memory configuration: static, a JavaScript expression, or AI-determined.',
  discriminatedUnionOf('type', 'transform type', [
    StaticMemoryTransformSchema,
    JavascriptTransformSchema,
    AiTransformSchema,
  ]),
);

export type MemoryOff = z.infer<typeof MemoryOffSchema>;
export type MemoryWindow = z.infer<typeof MemoryWindowSchema>;
export type MemoryAuto = z.infer<typeof MemoryAutoSchema>;
export type MemoryCompaction = z.infer<typeof MemoryCompactionSchema>;
export type MemoryMessage = z.infer<typeof MemoryMessageSchema>;
export type MemoryManual = z.infer<typeof MemoryManualSchema>;
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;
export type StaticMemoryTransform = z.infer<typeof StaticMemoryTransformSchema>;
export type MemoryTransform = z.infer<typeof MemoryTransformSchema>;
