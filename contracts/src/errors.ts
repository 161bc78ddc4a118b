import { z } from 'zod';

/**
 * Errors cross the mesh as `{ code, message, details? }`: a stable code a caller can branch
 * on, a sentence a person understands, never a stack trace and never a secret.
 */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'NOT_FOUND',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'CONFLICT',
  'TIMEOUT',
  'UNAVAILABLE',
  'LIMIT_EXCEEDED',
  'UNSUPPORTED',
  'INTERNAL',
] as const;

export const ErrorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorEnvelopeSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelopeSchema>;

/** One problem found in a payload, with the JSON path of the offending value. */
export const ValidationIssueSchema = z.object({
  path: z.string(),
  message: z.string(),
});
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/** The error every layer throws and every transport turns into an envelope. */
export class MeshError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'MeshError';
  }

  toEnvelope(): ErrorEnvelope {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromEnvelope(envelope: ErrorEnvelope): MeshError {
    return new MeshError(envelope.code, envelope.message, envelope.details);
  }
}

/** `value.modules[2].value.iterator` from zod's path segments. */
export function formatJsonPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment))
      out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out || '(root)';
}

/** Every zod issue as `{path, message}`. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: formatJsonPath(issue.path),
    message: issue.message,
  }));
}

/** A VALIDATION_FAILED error listing every problem, first one in the message. */
export function validationError(what: string, error: z.ZodError): MeshError {
  const issues = toValidationIssues(error);
  const first = issues[0];
  const summary = first ? `${first.path}: ${first.message}` : 'invalid';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new MeshError('VALIDATION_FAILED', `invalid ${what}: ${summary}${more}`, { issues });
}
