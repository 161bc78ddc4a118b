import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** The answer as `output_schema` wants it, or what is wrong with it (each problem with its path). */
export type CheckedOutput =
  { readonly ok: true; readonly output: unknown } | { readonly ok: false; readonly problems: string[] };

/**
 * Reads the model's final text as JSON and checks it against the step's `output_schema`. A schema
 * that is not one is the step's input error, said as such (thrown).
 */
export function checkOutput(schema: Record<string, unknown>, text: string): CheckedOutput {
  let output: unknown;
  try {
    output = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['the answer is not JSON'] };
  }
  const validate = compile(schema);
  if (validate(output)) return { ok: true, output };
  return { ok: false, problems: (validate.errors ?? []).map(describe) };
}

/** The message that asks the model once more, with what was wrong. */
export function retryPrompt(problems: readonly string[]): string {
  return `Your answer does not match the required output schema: ${problems.join('; ')}. Answer again with only the JSON value, matching the schema.`;
}

/** Compiles the schema (kept by its text); throws `OutputSchemaError` for one that is not a schema. */
export function compile(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const { $schema: _meta, ...rest } = schema;
    try {
      validate = ajv.compile(rest);
    } catch (error) {
      throw new OutputSchemaError(
        `output_schema: is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, validate);
  }
  return validate;
}

function describe(error: ErrorObject): string {
  const path = error.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : '(the answer)';
  return `${path}: ${error.message ?? 'is not valid'}`;
}

export class OutputSchemaError extends Error {
  override readonly name = 'AgentInputError';
}
