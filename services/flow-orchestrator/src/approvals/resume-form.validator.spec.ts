import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { ResumeFormValidator } from './resume-form.validator.js';

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { amount: { type: 'number', minimum: 0 }, reason: { type: 'string' } },
  required: ['amount', 'reason'],
};

describe('ResumeFormValidator', () => {
  const validator = new ResumeFormValidator();

  it('accepts a payload that fills the form', () => {
    expect(() => validator.validate(schema, { amount: 3, reason: 'ok' })).not.toThrow();
  });

  it('refuses one that does not, naming every problem and its path', () => {
    let error: unknown;
    try {
      validator.validate(schema, { amount: -1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MeshError);
    expect((error as MeshError).code).toBe('VALIDATION_FAILED');
    const { issues } = (error as MeshError).details as { issues: unknown[] };
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: '/reason', message: "must have required property 'reason'" },
        { path: '/amount', message: 'must be >= 0' },
      ]),
    );
  });

  it("reports a form schema that is not JSON Schema as the step author's problem", () => {
    expect(() => validator.validate({ type: 'no-such-type' }, {})).toThrow(/not a valid JSON Schema/);
  });
});
