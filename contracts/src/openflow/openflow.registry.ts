import { z } from 'zod';

/**
 * Metadata of the OpenFlow schemas, kept out of zod's global registry so that the JSON Schema
 * names (`FlowModule`, `Retry`, ...) cannot clash with other contracts. A schema registered
 * with an `id` becomes a `$defs` entry of the generated JSON Schema.
 */
export interface OpenFlowMeta {
  id?: string;
  description?: string;
  deprecated?: boolean;
  default?: unknown;
  [key: string]: unknown;
}

export const openFlowRegistry = z.registry<OpenFlowMeta>();

/** Registers `schema` under `id` and returns it unchanged. */
export function named<T extends z.ZodType>(
  id: string,
  description: string,
  schema: T,
  extra: OpenFlowMeta = {},
): T {
  openFlowRegistry.add(schema, { id, description, ...extra });
  return schema;
}

/** A boolean the spec gives a default for; the default is documented, never filled in, so a flow round-trips as written. */
export function booleanDefaultingTo(value: boolean) {
  const schema = z.boolean();
  openFlowRegistry.add(schema, { default: value });
  return schema.optional();
}
