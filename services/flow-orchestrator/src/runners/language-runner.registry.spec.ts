import { describe, expect, it } from 'vitest';
import { JobError, type ScriptJob, type ScriptRunner } from '../ports/script-runner.port.js';
import { LanguageRunnerRegistry } from './language-runner.registry.js';

const echo: ScriptRunner = { languages: ['bun', 'deno'], run: (job) => Promise.resolve(job.args) };
const job = (language: ScriptJob['language']): ScriptJob => ({
  id: 'j',
  workspace: 'main',
  language,
  content: '',
  args: { a: 1 },
  env: {},
  timeoutMs: 1_000,
  memoryMb: 64,
});

describe('LanguageRunnerRegistry', () => {
  it('runs a job with the runner of its language', async () => {
    const registry = new LanguageRunnerRegistry([echo]);
    expect(registry.languages).toEqual(['bun', 'deno']);
    await expect(registry.run(job('deno'), () => {})).resolves.toEqual({ a: 1 });
  });

  it('fails at once naming the language, what runs here and the tags that would serve it', async () => {
    const registry = new LanguageRunnerRegistry([echo], ['default', 'flow'], (language) =>
      language === 'go' ? ['go-builders'] : [],
    );
    const error = (await registry.run(job('go'), () => {}).catch((e: unknown) => e)) as JobError;
    expect(error).toBeInstanceOf(JobError);
    expect([error.name, error.message]).toEqual([
      'UnsupportedLanguage',
      'this worker (tags default, flow) has no runner for go scripts; it runs bun, deno; workers with tag go-builders run go scripts',
    ]);
    const rust = (await registry.run(job('rust'), () => {}).catch((e: unknown) => e)) as JobError;
    expect(rust.message).toMatch(
      /no runner for rust scripts; it runs bun, deno; no worker tag is known to run rust scripts$/,
    );
  });
});
