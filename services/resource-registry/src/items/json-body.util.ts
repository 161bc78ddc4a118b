/**
 * A handler result Nest sends as JSON whatever it is. Nest sends a returned string, number or
 * boolean as text; a resource value or a variable's value that is one must still reach the
 * client as JSON (`"abc"`, `true`), like every other value.
 */
export function jsonBody(value: unknown): { toJSON(): unknown } {
  return { toJSON: () => value };
}
