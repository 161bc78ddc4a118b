import { z } from 'zod';
import { itemRequestFields, JsonValueSchema } from './resource.schema.js';

/**
 * `$var:<path>` and `$res:<path>` references. A string that is exactly a reference is replaced
 * by the variable's value or the resource's (itself interpolated); a reference inside a longer
 * string is text. A missing reference and one the caller may not read fail alike.
 */
export const VARIABLE_REFERENCE_PREFIX = '$var:';
export const RESOURCE_REFERENCE_PREFIX = '$res:';

export const InterpolateRequestSchema = z.object({ ...itemRequestFields, value: JsonValueSchema }).strict();
export const InterpolateReplySchema = z.object({ value: z.unknown() });
