import type { ScriptLanguage } from '@flowmesh/contracts';
import {
  JobError,
  type LogLineSink,
  type ScriptJob,
  type ScriptRunnerRegistry,
} from '../../ports/script-runner.port.js';

/**
 * The runner registry of a process that runs no scripts (the API role, or a worker built without
 * runners): every script fails at once with an error naming its language.
 */
export class NoScriptRunners implements ScriptRunnerRegistry {
  readonly languages: readonly ScriptLanguage[] = [];

  constructor(private readonly tags: readonly string[]) {}

  run(job: ScriptJob, _onLog: LogLineSink): Promise<unknown> {
    return Promise.reject(
      new JobError(
        'UnsupportedLanguage',
        `no runner for ${job.language} scripts on this worker (tags ${this.tags.join(', ') || 'none'}); ` +
          'run it on a worker tag whose workers have that runner',
      ),
    );
  }
}
