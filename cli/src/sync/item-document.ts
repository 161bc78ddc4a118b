import {
  ItemPathSchema,
  NewHttpTriggerSchema,
  NewScheduleSchema,
  ResourceTypeNameSchema,
  ScriptLanguageSchema,
} from '@flowmesh/contracts';
import { z } from 'zod';

/**
 * What an item file holds: `kind` says what it is, the other fields are those of the registry's
 * create routes. A script's `content` may instead sit in a code file beside its sidecar
 * (`lookup.ts` + `lookup.script.yaml`).
 */
const description = z.string().nullish();
const jsonObject = z.record(z.string(), z.unknown());

export const ResourceDocumentSchema = z
  .object({
    kind: z.literal('resource'),
    path: ItemPathSchema,
    resource_type: ResourceTypeNameSchema,
    value: z.unknown().refine((value) => value !== undefined, 'is required'),
    description,
  })
  .strict();

export const VariableDocumentSchema = z
  .object({
    kind: z.literal('variable'),
    path: ItemPathSchema,
    /** Absent for a pulled secret: pushing it back keeps the value the registry holds. */
    value: z.string().optional(),
    is_secret: z.boolean().default(false),
    description,
  })
  .strict();

export const ScriptDocumentSchema = z
  .object({
    kind: z.literal('script'),
    path: ItemPathSchema,
    language: ScriptLanguageSchema.optional(),
    content: z.string().optional(),
    summary: z.string().default(''),
    description,
    lock: z.string().nullish(),
    schema: jsonObject.nullish(),
  })
  .strict();

export const FlowDocumentSchema = z
  .object({
    kind: z.literal('flow'),
    path: ItemPathSchema,
    summary: z.string().default(''),
    description,
    value: jsonObject,
    schema: jsonObject.nullish(),
  })
  .strict();

/** A schedule: the fields of Windmill's `NewSchedule` (what `flowmesh schedules create` takes). */
export const ScheduleDocumentSchema = NewScheduleSchema.extend({ kind: z.literal('schedule') }).strict();

/** An HTTP route: the fields of Windmill's `NewHttpTrigger` (what `flowmesh routes create` takes). */
export const HttpTriggerDocumentSchema = NewHttpTriggerSchema.extend({
  kind: z.literal('http_trigger'),
}).strict();

export const ItemDocumentSchema = z.discriminatedUnion('kind', [
  ResourceDocumentSchema,
  VariableDocumentSchema,
  ScriptDocumentSchema,
  FlowDocumentSchema,
  ScheduleDocumentSchema,
  HttpTriggerDocumentSchema,
]);

export type ResourceDocument = z.output<typeof ResourceDocumentSchema>;
export type VariableDocument = z.output<typeof VariableDocumentSchema>;
export type FlowDocument = z.output<typeof FlowDocumentSchema>;
export type ScheduleDocument = z.output<typeof ScheduleDocumentSchema>;
export type HttpTriggerDocument = z.output<typeof HttpTriggerDocumentSchema>;
/** A script as its file says, content and language perhaps in the code file beside it. */
export type ScriptDocumentInput = z.output<typeof ScriptDocumentSchema>;
/** A script ready to push: its language and content settled. */
export type ScriptDocument = ScriptDocumentInput & {
  language: NonNullable<ScriptDocumentInput['language']>;
  content: string;
};
export type ItemDocument =
  | ResourceDocument
  | VariableDocument
  | ScriptDocument
  | FlowDocument
  | ScheduleDocument
  | HttpTriggerDocument;
export type ItemKind = ItemDocument['kind'];

/** The order `push` writes them in: what a later kind refers to exists first (a schedule's flow). */
export const ITEM_KINDS: readonly ItemKind[] = [
  'variable',
  'resource',
  'script',
  'flow',
  'schedule',
  'http_trigger',
];

/** Code file extensions and the script language each means when a sidecar names none. */
export const SCRIPT_EXTENSIONS: Readonly<Record<string, z.output<typeof ScriptLanguageSchema>>> = {
  '.ts': 'bun',
  '.js': 'bun',
  '.py': 'python3',
  '.sh': 'bash',
  '.sql': 'postgresql',
  '.go': 'go',
  '.ps1': 'powershell',
  '.php': 'php',
  '.rs': 'rust',
  '.rb': 'ruby',
  '.r': 'rlang',
};

/** The extension a pulled script's code file gets. */
export function extensionOf(language: string): string {
  if (language === 'deno' || language === 'nativets' || language === 'bunnative') return '.ts';
  if (
    language === 'mysql' ||
    language === 'bigquery' ||
    language === 'snowflake' ||
    language === 'mssql' ||
    language === 'duckdb'
  )
    return '.sql';
  if (language === 'oracledb') return '.sql';
  return Object.entries(SCRIPT_EXTENSIONS).find(([, lang]) => lang === language)?.[0] ?? '.txt';
}
