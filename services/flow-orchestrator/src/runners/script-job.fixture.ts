import type { ScriptLanguage } from '@flowmesh/contracts';
import { expect } from 'vitest';
import { JobError, type ScriptJob } from '../ports/script-runner.port.js';

/** Tests only: script jobs of one language, each with an id of its own. */
export function scriptJobs(
  language: ScriptLanguage,
  defaults: Partial<ScriptJob> = {},
): (content: string, extra?: Partial<ScriptJob>) => ScriptJob {
  let sequence = 0;
  return (content, extra = {}) => {
    sequence += 1;
    return {
      id: `${language}-${sequence}`,
      workspace: 'main',
      language,
      content,
      args: {},
      env: {},
      timeoutMs: 20_000,
      memoryMb: 256,
      ...defaults,
      ...extra,
    };
  };
}

/** Tests only: the `JobError` a run fails with (fails the test when it resolves or throws anything else). */
export async function jobFailure(promise: Promise<unknown>): Promise<JobError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JobError);
  return error as JobError;
}
