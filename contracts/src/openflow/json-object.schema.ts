import { z } from 'zod';

/** Any JSON object (`type: object` in the spec with no declared properties), kept as written. */
export const JsonObjectSchema = z.looseObject({});
export type JsonObject = z.infer<typeof JsonObjectSchema>;
