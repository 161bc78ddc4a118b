import { MeshError, type ErrorCode, type ErrorEnvelope } from '@flowmesh/contracts';

/**
 * The envelope a handler failure travels as. A `MeshError` keeps its code, message and details;
 * anything else is a bug or an infrastructure fault whose message may hold internals, so the
 * caller only learns that it was internal (the transport logs the real error).
 */
export function toErrorEnvelope(error: unknown): { envelope: ErrorEnvelope; expected: boolean } {
  if (error instanceof MeshError) return { envelope: error.toEnvelope(), expected: true };
  return { envelope: { code: 'INTERNAL', message: 'internal error' }, expected: false };
}

/**
 * Codes that will not change on redelivery: retrying an invalid payload or a missing permission
 * only delays the dead letter. Timeouts, unavailability, conflicts and limits may clear.
 */
const PERMANENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'UNSUPPORTED',
]);

export function isRetryable(error: unknown): boolean {
  return !(error instanceof MeshError && PERMANENT_CODES.has(error.code));
}

/** A short description of any thrown value for a dead letter (name and message, never a stack). */
export function describeFailure(error: unknown): ErrorEnvelope {
  if (error instanceof MeshError) return error.toEnvelope();
  if (error instanceof Error) return { code: 'INTERNAL', message: `${error.name}: ${error.message}` };
  return { code: 'INTERNAL', message: String(error) };
}
