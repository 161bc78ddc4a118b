/**
 * A handler result Nest sends as JSON whatever it is: Nest sends a returned string, number or
 * boolean as text, but a job result that is one must still reach the client as JSON (`"abc"`).
 */
export function jsonBody(value: unknown): { toJSON(): unknown } {
  return { toJSON: () => value ?? null };
}
