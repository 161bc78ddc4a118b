/** Google's API error shape (`{"error":{"code","message","status","details"}}`), shared by Gemini and Vertex. */
export interface GoogleErrorFields {
  code?: number;
  message?: string;
  status?: string;
  /** `ErrorInfo.reason` values, e.g. `API_KEY_INVALID`. */
  reasons: string[];
  /** From `RetryInfo.retryDelay` (`"20s"`, `"1.5s"`). */
  retryDelayMs?: number;
}

interface GoogleErrorDetail {
  '@type'?: string;
  reason?: string;
  retryDelay?: string;
}

export function googleErrorFields(json: unknown): GoogleErrorFields | undefined {
  // streamGenerateContent without alt=sse wraps everything, errors included, in an array.
  const body = Array.isArray(json) ? (json[0] as unknown) : json;
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const fields = error as { code?: unknown; message?: unknown; status?: unknown; details?: unknown };
  const details = Array.isArray(fields.details) ? (fields.details as GoogleErrorDetail[]) : [];
  const reasons = details.flatMap((detail) => (typeof detail?.reason === 'string' ? [detail.reason] : []));
  const delay = details.find((detail) => typeof detail?.retryDelay === 'string')?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : Number.NaN;
  return {
    ...(typeof fields.code === 'number' ? { code: fields.code } : {}),
    ...(typeof fields.message === 'string' ? { message: fields.message } : {}),
    ...(typeof fields.status === 'string' ? { status: fields.status } : {}),
    reasons,
    ...(Number.isFinite(seconds) && seconds >= 0 ? { retryDelayMs: Math.round(seconds * 1000) } : {}),
  };
}
