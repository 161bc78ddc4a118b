import { ItemPathSchema, ScriptHashSchema, ScriptLanguageSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies of `/api/w/:workspace/scripts/...`, shaped as Windmill's `NewScript`. */
export const CreateScriptBodySchema = z
  .object({
    path: ItemPathSchema,
    parent_hash: ScriptHashSchema.nullish(),
    summary: z.string().max(1_000).default(''),
    description: z.string().max(10_000).nullish(),
    content: z.string(),
    schema: z.record(z.string(), z.unknown()).nullish(),
    language: ScriptLanguageSchema,
    lock: z.string().nullish(),
  })
  // Windmill clients send more (kind, tag, envs, ...); what the registry does not keep is ignored.
  .strip();

export const ListScriptsQuerySchema = z.object({ path_start: z.string().max(255).optional() });
