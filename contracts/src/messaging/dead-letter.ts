import { z } from 'zod';
import { ErrorEnvelopeSchema } from '../errors.js';

/**
 * What the dead-letter stream records when a JetStream message could not be handled: it ran out
 * of deliveries, or the handler rejected it for good (an invalid payload, a non-retryable error).
 * Enough to understand why and to republish it by hand.
 */
export const DeadLetterSchema = z.object({
  /** Why the message was given up on: the last error, or `LIMIT_EXCEEDED` when deliveries ran out. */
  reason: ErrorEnvelopeSchema,
  /** Wire stream and durable consumer names. */
  stream: z.string(),
  durable: z.string(),
  /** Wire subject the message was published on. */
  subject: z.string(),
  streamSequence: z.number().int().nonnegative(),
  deliveryCount: z.number().int().positive(),
  /** Original headers, multi-valued as NATS allows. */
  headers: z.record(z.string(), z.array(z.string())),
  /** Original body as UTF-8 text (mesh payloads are JSON). */
  payload: z.string(),
  /** ISO time of the original publish and of the dead-lettering. */
  publishedAt: z.string(),
  deadLetteredAt: z.string(),
});
export type DeadLetter = z.infer<typeof DeadLetterSchema>;
