import { describe, expect, it } from 'vitest';
import { ResumeSigner } from './resume-signer.js';

const JOB = '0193f0c2-7a65-7000-8000-000000000001';

describe('ResumeSigner', () => {
  const signer = new ResumeSigner('k'.repeat(32));

  it('accepts its own signature for the same job, resume id and approver', () => {
    const signature = signer.sign('main', JOB, 42, 'alice');
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(signer.verify('main', JOB, 42, 'alice', signature)).toBe(true);
  });

  it('refuses the signature for another workspace, job, resume id or approver, and a tampered one', () => {
    const signature = signer.sign('main', JOB, 42, 'alice');
    expect(signer.verify('main', JOB.replace(/1$/, '2'), 42, 'alice', signature)).toBe(false);
    expect(signer.verify('other', JOB, 42, 'alice', signature)).toBe(false);
    expect(signer.verify('main', JOB, 43, 'alice', signature)).toBe(false);
    expect(signer.verify('main', JOB, 42, 'bob', signature)).toBe(false);
    expect(signer.verify('main', JOB, 42, undefined, signature)).toBe(false);
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expect(signer.verify('main', JOB, 42, 'alice', flipped)).toBe(false);
    expect(signer.verify('main', JOB, 42, 'alice', 'not-hex')).toBe(false);
  });

  it('signs differently under another key, and with a generated key when none is configured', () => {
    const other = new ResumeSigner('o'.repeat(32));
    expect(other.verify('main', JOB, 42, 'alice', signer.sign('main', JOB, 42, 'alice'))).toBe(false);
    const generated = new ResumeSigner(undefined);
    expect(generated.verify('main', JOB, 1, undefined, generated.sign('main', JOB, 1, undefined))).toBe(true);
    expect(signer.verify('main', JOB, 1, undefined, generated.sign('main', JOB, 1, undefined))).toBe(false);
  });
});
