import { z } from 'zod';
import { ErrorEnvelopeSchema } from '../errors.js';

/**
 * Every request/reply answer on the wire: `{ ok: true, data }` or `{ ok: false, error }`.
 * The caller validates `data` against the request contract's reply schema; an error travels as
 * the stable `{ code, message, details? }` envelope so a caller can branch on `code`.
 */
export const ReplySuccessSchema = z.object({ ok: z.literal(true), data: z.unknown() });
export const ReplyFailureSchema = z.object({ ok: z.literal(false), error: ErrorEnvelopeSchema });

export const ReplyEnvelopeSchema = z.discriminatedUnion('ok', [ReplySuccessSchema, ReplyFailureSchema]);
export type ReplyEnvelope = z.infer<typeof ReplyEnvelopeSchema>;

/** The envelope with `data` typed by a reply schema, for clients in other languages (JSON Schema). */
export function replyEnvelopeOf<Data extends z.ZodType>(data: Data) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), data }), ReplyFailureSchema]);
}
