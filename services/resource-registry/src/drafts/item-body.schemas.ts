import {
  JsonValueSchema,
  ResourceTypeNameSchema,
  ScriptLanguageSchema,
  validationError,
  type DraftItemKind,
} from '@flowmesh/contracts';
import { z } from 'zod';

/**
 * What writing an item takes, without its path: the value of a draft, and what a deploy carries
 * from one workspace to another. Field names are those of the items' create requests.
 */
export const ResourceBodySchema = z
  .object({
    resource_type: ResourceTypeNameSchema,
    value: JsonValueSchema,
    description: z.string().nullish(),
  })
  .strict();

export const ScriptBodySchema = z
  .object({
    language: ScriptLanguageSchema,
    content: z.string(),
    lock: z.string().nullish(),
    schema: z.record(z.string(), z.unknown()).nullish(),
    summary: z.string().default(''),
    description: z.string().nullish(),
  })
  .strict();

export const FlowBodySchema = z
  .object({
    summary: z.string().default(''),
    description: z.string().nullish(),
    value: z.record(z.string(), z.unknown()),
    schema: z.record(z.string(), z.unknown()).nullish(),
  })
  .strict();

/** `value` is any JSON (the schema requires it to be present). */
export type ResourceBody = Omit<z.output<typeof ResourceBodySchema>, 'value'> & { value: unknown };
export type ScriptBody = z.output<typeof ScriptBodySchema>;
export type FlowBody = z.output<typeof FlowBodySchema>;

export type ItemBody =
  | { readonly kind: 'resource'; readonly body: ResourceBody }
  | { readonly kind: 'script'; readonly body: ScriptBody }
  | { readonly kind: 'flow'; readonly body: FlowBody };

/** The body of a `kind` item, or VALIDATION_FAILED naming every bad field (`what`: where it came from). */
export function parseItemBody(kind: DraftItemKind, value: unknown, what: string): ItemBody {
  switch (kind) {
    case 'resource':
      return { kind, body: parse(ResourceBodySchema, value, what) };
    case 'script':
      return { kind, body: parse(ScriptBodySchema, value, what) };
    case 'flow':
      return { kind, body: parse(FlowBodySchema, value, what) };
  }
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(what, result.error);
  return result.data;
}
