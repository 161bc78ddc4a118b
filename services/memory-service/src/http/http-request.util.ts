import { parseWith } from '@flowmesh/http';
import { z } from 'zod';

/** Parses what an HTTP route received with the contract's schema; a bad value is a 400 naming it. */
export function parseHttpRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseWith(schema, input, 'request');
}

/** `?page=2&per_page=50&flow_path=f/a/b` as the paging fields of a list request. */
export const ListQuerySchema = z
  .object({
    page: z.coerce.number().int().positive().optional(),
    per_page: z.coerce.number().int().positive().optional(),
    flow_path: z.string().optional(),
    order: z.enum(['asc', 'desc']).optional(),
  })
  .transform((query) => ({
    ...(query.page === undefined ? {} : { page: query.page }),
    ...(query.per_page === undefined ? {} : { perPage: query.per_page }),
    ...(query.flow_path === undefined ? {} : { flowPath: query.flow_path }),
    ...(query.order === undefined ? {} : { order: query.order }),
  }));
