import { z } from 'zod';
import { InputTransformsSchema } from './input-transform.schema.js';
import { named } from './openflow.registry.js';

/** Languages of an inline script. Not dbt: a dbt script needs its project bundle, which an inline snippet lacks. */
export const RAW_SCRIPT_LANGUAGES = [
  'deno',
  'bun',
  'bunnative',
  'python3',
  'go',
  'bash',
  'powershell',
  'postgresql',
  'mysql',
  'bigquery',
  'snowflake',
  'mssql',
  'oracledb',
  'graphql',
  'nativets',
  'php',
  'rust',
  'ansible',
  'csharp',
  'nu',
  'java',
  'ruby',
  'rlang',
  'duckdb',
] as const;

export const ASSET_KINDS = ['s3object', 'resource', 'ducklake', 'datatable', 'volume', 'dbt'] as const;

const AccessTypeSchema = z.enum(['r', 'w', 'rw']).nullable();

export const ScriptAssetSchema = named(
  'ScriptAsset',
  'An external resource a script accesses (S3 object, resource, ...).',
  z.looseObject({
    path: z.string(),
    kind: z.enum(ASSET_KINDS),
    access_type: AccessTypeSchema.optional(),
    alt_access_type: AccessTypeSchema.optional(),
  }),
);

export const RawScriptSchema = named(
  'RawScript',
  'Inline script whose code lives in the flow; it receives its arguments from input_transforms.',
  z.looseObject({
    input_transforms: InputTransformsSchema,
    content: z.string(),
    language: z.enum(RAW_SCRIPT_LANGUAGES),
    path: z.string().optional(),
    lock: z.string().optional(),
    type: z.literal('rawscript'),
    tag: z.string().optional(),
    concurrent_limit: z.number().optional(),
    concurrency_time_window_s: z.number().optional(),
    custom_concurrency_key: z.string().optional(),
    is_trigger: z.boolean().optional(),
    assets: z.array(ScriptAssetSchema).optional(),
  }),
);

export const PathScriptSchema = named(
  'PathScript',
  'Reference to a saved script by path.',
  z.looseObject({
    input_transforms: InputTransformsSchema,
    path: z.string(),
    hash: z.string().optional(),
    type: z.literal('script'),
    tag_override: z.string().optional(),
    is_trigger: z.boolean().optional(),
  }),
);

export const PathFlowSchema = named(
  'PathFlow',
  'Reference to a saved flow by path, run as a subflow.',
  z.looseObject({
    input_transforms: InputTransformsSchema,
    path: z.string(),
    type: z.literal('flow'),
  }),
);

export const IdentitySchema = named(
  'Identity',
  'Pass-through module that returns its input unchanged.',
  z.looseObject({
    type: z.literal('identity'),
    flow: z.boolean().optional(),
  }),
);

export type RawScriptLanguage = (typeof RAW_SCRIPT_LANGUAGES)[number];
export type ScriptAsset = z.infer<typeof ScriptAssetSchema>;
export type RawScript = z.infer<typeof RawScriptSchema>;
export type PathScript = z.infer<typeof PathScriptSchema>;
export type PathFlow = z.infer<typeof PathFlowSchema>;
export type Identity = z.infer<typeof IdentitySchema>;
