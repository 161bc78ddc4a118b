import { describe, expect, it } from 'vitest';
import { decodeEnvelope, encodeFailure, encodeSuccess } from './reply-envelope.codec.js';

describe('reply envelope codec', () => {
  it('round-trips a success, turning undefined data into null', () => {
    expect(decodeEnvelope(encodeSuccess({ a: 1 }))).toEqual({ ok: true, data: { a: 1 } });
    expect(decodeEnvelope(encodeSuccess(undefined))).toEqual({ ok: true, data: null });
  });

  it('round-trips a failure', () => {
    const error = { code: 'NOT_FOUND', message: 'no such flow', details: { path: 'f/x' } } as const;
    expect(decodeEnvelope(encodeFailure(error))).toEqual({ ok: false, error });
  });

  it('refuses bodies that are not envelopes', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    expect(decodeEnvelope(bytes('not json'))).toBeUndefined();
    expect(decodeEnvelope(bytes('{"ok":false,"error":{"code":"NOPE","message":"x"}}'))).toBeUndefined();
    expect(decodeEnvelope(new Uint8Array())).toBeUndefined();
  });
});
