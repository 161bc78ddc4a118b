import { ResourceTypeNameSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies of `/api/w/:workspace/resources/type/...`, shaped as Windmill's. */
const schema = z.record(z.string(), z.unknown());
const description = z.string().max(10_000).nullish();

export const CreateResourceTypeBodySchema = z
  .object({ name: ResourceTypeNameSchema, schema, description })
  .strict();
export const UpdateResourceTypeBodySchema = z.object({ schema: schema.optional(), description }).strict();
