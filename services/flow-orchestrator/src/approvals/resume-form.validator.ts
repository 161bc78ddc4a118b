import { MeshError } from '@flowmesh/contracts';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * A resume payload checked against the step's `resume_form.schema` (JSON Schema). Compiled
 * schemas are kept by their text, as one suspended step is usually answered more than once.
 */
export class ResumeFormValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  /** Throws VALIDATION_FAILED listing every problem with its JSON path. */
  validate(schema: Record<string, unknown>, payload: unknown): void {
    const validate = this.compile(schema);
    if (validate(payload)) return;
    const issues = (validate.errors ?? []).map(describe);
    const first = issues[0];
    throw new MeshError(
      'VALIDATION_FAILED',
      `the resume payload does not match the step's form: ${first ? `${first.path}: ${first.message}` : 'invalid'}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
      { issues },
    );
  }

  private compile(schema: Record<string, unknown>): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      try {
        validate = this.ajv.compile(withoutMetaSchema(schema));
      } catch (error) {
        throw new MeshError(
          'VALIDATION_FAILED',
          `the step's resume_form.schema is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      if (this.compiled.size > 1_000) this.compiled.clear();
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

// Flow editors write `$schema` of draft 2020-12 or 07; the keywords a form uses mean the same in
// both, and this Ajv knows draft 07 only, so the declaration is not what decides.
function withoutMetaSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function describe(error: ErrorObject): { path: string; message: string } {
  const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
  return { path: `${error.instancePath}${missing}` || '/', message: error.message ?? error.keyword };
}
