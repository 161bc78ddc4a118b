import { randomBytes } from 'node:crypto';
import { MeshError } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { insecureDevelopmentKeyring, parseSecretKeys, type SecretKeyring } from './secret-keyring.js';
import { JobTokenSealer } from './job-token.sealer.js';

const key = () => randomBytes(32).toString('base64');
function keyring(text: string): SecretKeyring {
  const parsed = parseSecretKeys(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.keyring;
}

describe('JobTokenSealer', () => {
  const TOKEN = 'fm_job_0123456789abcdefghijklmnopqrstuv';
  const JOB = '0195f3a0-0000-7000-8000-000000000001';

  it('seals a token so the stored text holds no trace of it, and opens it for its job', () => {
    const sealer = new JobTokenSealer(keyring(`k1:${key()}`));
    const stored = sealer.seal(TOKEN, JOB);
    expect(stored).toMatch(/^sealed:v1:k1:[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(TOKEN.slice(7));
    expect(sealer.seal(TOKEN, JOB)).not.toBe(stored); // a fresh IV each time
    expect(sealer.open(stored, JOB)).toBe(TOKEN);
  });

  it('refuses it for another job, under a key it lacks, or altered, naming the job and key, never the token', () => {
    const first = key();
    const sealer = new JobTokenSealer(keyring(`k1:${first}`));
    const stored = sealer.seal(TOKEN, JOB);
    const failure = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(MeshError);
        expect((error as Error).message).not.toContain(TOKEN);
        return (error as Error).message;
      }
      throw new Error('expected a failure');
    };
    expect(failure(() => sealer.open(stored, 'another-job'))).toBe(
      'the job token of job another-job does not open with key "k1": the key differs or the row was altered',
    );
    expect(failure(() => new JobTokenSealer(keyring(`k2:${key()}`)).open(stored, JOB))).toBe(
      `the job token of job ${JOB} was sealed with key "k1", which FLOWMESH_JOB_TOKEN_STORE_KEYS does not hold`,
    );
    expect(failure(() => sealer.open(`${stored.slice(0, -4)}AAAA`, JOB))).toMatch(/does not open/);
  });

  it('opens what an older key sealed after a rotation, and a row stored before sealing as it is', () => {
    const old = key();
    const before = new JobTokenSealer(keyring(`k1:${old}`)).seal(TOKEN, JOB);
    const rotated = new JobTokenSealer(keyring(`k2:${key()},k1:${old}`));
    expect(rotated.open(before, JOB)).toBe(TOKEN);
    expect(rotated.seal(TOKEN, JOB)).toMatch(/^sealed:v1:k2:/);
    expect(rotated.open(TOKEN, JOB)).toBe(TOKEN);
  });

  it('uses a development key of its own, the same in every process, when none is set', () => {
    const dev = insecureDevelopmentKeyring('job token key');
    expect(dev.insecureDevelopmentKey).toBe(true);
    const stored = new JobTokenSealer(dev).seal(TOKEN, JOB);
    expect(new JobTokenSealer(insecureDevelopmentKeyring('job token key')).open(stored, JOB)).toBe(TOKEN);
    expect(insecureDevelopmentKeyring('job token key').current.key).not.toEqual(
      insecureDevelopmentKeyring().current.key,
    );
  });
});
