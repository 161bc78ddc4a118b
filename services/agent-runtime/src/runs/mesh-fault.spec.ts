import { MeshError } from '@flowmesh/contracts';
import { QueryFailedError } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { isMeshFault, MeshInterrupted } from './mesh-fault.js';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('isMeshFault', () => {
  it("takes a service's unexpected failure and a database that cannot serve for the mesh's fault", () => {
    expect(isMeshFault(new MeshError('INTERNAL', 'internal error'))).toBe(true);
    expect(isMeshFault(pgError('53300', 'sorry, too many clients already'))).toBe(true);
    expect(isMeshFault(pgError('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isMeshFault(pgError('08006', 'connection failure'))).toBe(true);
    expect(isMeshFault(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isMeshFault(new QueryFailedError('SELECT 1', [], pgError('53300', 'too many clients')))).toBe(
      true,
    );
    expect(isMeshFault(new MeshInterrupted('the llm-gateway instance stopped'))).toBe(true);
  });

  it("leaves the step's own failures, and provider outages, to the step", () => {
    expect(isMeshFault(new MeshError('UNAVAILABLE', 'the provider is overloaded'))).toBe(false);
    expect(isMeshFault(new MeshError('VALIDATION_FAILED', 'input_transforms.provider: required'))).toBe(
      false,
    );
    expect(isMeshFault(new MeshError('TIMEOUT', 'the model did not answer'))).toBe(false);
    expect(isMeshFault(pgError('23505', 'duplicate key'))).toBe(false);
    expect(isMeshFault(new Error('the tool failed'))).toBe(false);
    expect(isMeshFault('a string')).toBe(false);
  });
});
