import { createHash } from 'node:crypto';
import { formatJsonPath, MeshError, type ValidationIssue } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS with a default export property.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const MAX_CACHED = 500;
const MAX_ISSUES = 50;

/**
 * Resource values against their type's JSON Schema, with ajv. Compiled validators are cached by
 * the schema's hash, so a type's schema compiles once per process (and again only when it
 * changes). Draft 2020-12 is the default; a schema that declares draft-07 (or older) gets a
 * draft-07 validator. Remote `$ref`s are never fetched.
 */
@Injectable()
export class ResourceValueValidator {
  private readonly draft2020 = withFormats(new Ajv2020(ajvOptions));
  private readonly draft7 = withFormats(new Ajv(ajvOptions));
  private readonly compiled = new Map<string, ValidateFunction>();

  /** The validator of `schema`; VALIDATION_FAILED when it is not a usable JSON Schema. */
  compile(schema: Record<string, unknown>): ValidateFunction {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
    const cached = this.compiled.get(key);
    if (cached) return cached;
    let validate: ValidateFunction;
    try {
      validate = this.ajvFor(schema).compile(schema);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new MeshError('VALIDATION_FAILED', `schema is not a valid JSON Schema: ${reason}`, {
        issues: [{ path: 'schema', message: reason }],
      });
    }
    if (this.compiled.size >= MAX_CACHED) this.compiled.delete(this.compiled.keys().next().value as string);
    this.compiled.set(key, validate);
    return validate;
  }

  /** Every violation of `value` against `schema`, as `value.<path>: <message>`; empty when valid. */
  check(schema: Record<string, unknown>, value: unknown): ValidationIssue[] {
    const validate = this.compile(schema);
    if (validate(value)) return [];
    return toIssues(validate.errors ?? []);
  }

  private ajvFor(schema: Record<string, unknown>): Ajv {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    return /draft-0[4-7]/.test(declared) ? this.draft7 : this.draft2020;
  }
}

const ajvOptions = {
  allErrors: true,
  // Schemas come from users and from other tools (Windmill's hub): unknown keywords are annotations.
  strict: false,
  // A type's `$id` must not clash with another type's in the shared instance.
  addUsedSchema: false,
  logger: false,
} as const;

function withFormats<T extends Ajv>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

/** ajv errors as issues with JSON paths rooted at `value`, duplicates dropped, at most 50. */
export function toIssues(errors: readonly ErrorObject[]): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const issue = toIssue(error);
    const key = `${issue.path}\0${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
    if (issues.length === MAX_ISSUES) break;
  }
  return issues;
}

function toIssue(error: ErrorObject): ValidationIssue {
  const segments: PropertyKey[] = [
    'value',
    ...error.instancePath
      .split('/')
      .slice(1)
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment)),
  ];
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: formatJsonPath([...segments, params.missingProperty]), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return {
      path: formatJsonPath([...segments, params.additionalProperty]),
      message: 'is not an allowed property',
    };
  }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    return {
      path: formatJsonPath(segments),
      message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
    };
  }
  return { path: formatJsonPath(segments), message: error.message ?? `fails ${error.keyword}` };
}
