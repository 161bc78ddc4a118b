import { ReplyEnvelopeSchema, type ErrorEnvelope, type ReplyEnvelope } from '@flowmesh/contracts';
import { decodeJson, encodeJson } from './json.codec.js';

export function encodeSuccess(data: unknown): Uint8Array {
  return encodeJson({ ok: true, data: data ?? null });
}

export function encodeFailure(error: ErrorEnvelope): Uint8Array {
  return encodeJson({ ok: false, error });
}

/** The envelope of a reply body, or `undefined` when the body is not one. */
export function decodeEnvelope(data: Uint8Array): ReplyEnvelope | undefined {
  const json = decodeJson(data);
  if (!json.ok) return undefined;
  // Fast path for the common shape; the schema is the authority for everything else.
  const value = json.value as { ok?: unknown; data?: unknown } | null;
  if (value !== null && typeof value === 'object' && value.ok === true && 'data' in value) {
    return { ok: true, data: value.data };
  }
  const parsed = ReplyEnvelopeSchema.safeParse(json.value);
  return parsed.success ? parsed.data : undefined;
}
