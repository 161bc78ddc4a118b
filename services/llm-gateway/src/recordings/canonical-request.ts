import { createHash } from 'node:crypto';
import type { ChatParameters, DecideRequest, ProviderReference } from '@flowmesh/contracts';

/**
 * A request as a recording compares it: what decides the answer (provider kind and model,
 * prompts, messages, tools, parameters), never who asks, with which credentials, on which stream
 * or conversation. Inline bytes are kept as their sha256 so a recording stays readable in git;
 * prompt-cache markers are left out (a hint to the provider, not the question).
 */
export type CanonicalRequest = Record<string, unknown>;

export function canonicalChatRequest(
  provider: ProviderReference,
  fallbacks: readonly ProviderReference[] | undefined,
  parameters: ChatParameters,
): CanonicalRequest {
  return canonical({
    provider: modelOf(provider),
    ...(fallbacks?.length ? { fallbacks: fallbacks.map(modelOf) } : {}),
    ...parameters,
  }) as CanonicalRequest;
}

export function canonicalDecideRequest(request: DecideRequest): CanonicalRequest {
  return canonical({
    provider: modelOf(request.provider),
    state: request.state,
    questions: request.questions,
  }) as CanonicalRequest;
}

/**
 * sha256 (hex) of the request's JSON with its keys sorted, so field order never matters: a
 * request read back from a recording file digests as it did when it was recorded.
 */
export function requestDigest(request: CanonicalRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(sortedKeys(request)))
    .digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortedKeys(record[key])]),
  );
}

function modelOf(reference: ProviderReference): { kind: string; model: string } {
  return { kind: reference.kind, model: reference.model };
}

/** Keys sorted at every level, undefined dropped, cache markers out, inline bytes as their digest. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field === undefined || key === 'cache') continue;
    if (key === 'data' && record.type === 'inline_data' && typeof field === 'string') {
      out[key] = `sha256:${createHash('sha256').update(field).digest('hex')}`;
      continue;
    }
    out[key] = canonical(field);
  }
  return out;
}
