import type { ValidationIssue } from '@flowmesh/contracts';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

const COMPILED_LIMIT = 1_000;

/**
 * Checks a run's args against its target's JSON schema (Ajv), every problem at once, each naming
 * its field (`args.name`): what a schedule's save and an MCP tool call check before a run starts.
 * Compiled schemas are kept by their text (at most 1 000). A target whose own schema is not valid
 * JSON Schema takes any args, as a run does.
 */
export class ArgsSchemaCheck {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  issues(schema: Record<string, unknown>, args: Record<string, unknown>): ValidationIssue[] {
    const validate = this.compile(schema);
    if (!validate || validate(args)) return [];
    return (validate.errors ?? []).map((error) => ({
      path: argsPath(error),
      message: error.message ?? error.keyword,
    }));
  }

  private compile(schema: Record<string, unknown>): ValidateFunction | undefined {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      const { $schema: _declared, ...rest } = schema;
      try {
        validate = this.ajv.compile(rest);
      } catch {
        return undefined;
      }
      if (this.compiled.size > COMPILED_LIMIT) this.compiled.clear();
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

function argsPath(error: ErrorObject): string {
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  return ['args', ...segments].join('.');
}
