/**
 * A handler result Nest sends as JSON whatever it is. Nest sends a returned string, number or
 * boolean as text; a value that is one (a job result, a variable's value, an `exists` answer) must
 * still reach the client as JSON (`"abc"`, `true`), like every other value. Nothing is `null`.
 */
export function jsonBody(value: unknown): { toJSON(): unknown } {
  return { toJSON: () => value ?? null };
}
