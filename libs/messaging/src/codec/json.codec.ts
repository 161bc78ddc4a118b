/**
 * Mesh bodies are UTF-8 JSON. One encoder and decoder for the process: creating them per
 * message shows up in the request/reply hot path.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value) ?? 'null');
}

export function decodeText(data: Uint8Array): string {
  return decoder.decode(data);
}

/** The parsed body, or `undefined` for a body that is not JSON (an empty body is `undefined` too). */
export function decodeJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  if (data.length === 0) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(decoder.decode(data)) };
  } catch {
    return { ok: false };
  }
}
