import type { ScriptLanguage } from '@flowmesh/contracts';
import {
  JobError,
  type LogLineSink,
  type ScriptJob,
  type ScriptRunner,
  type ScriptRunnerRegistry,
  type ScriptRunOptions,
} from '../ports/script-runner.port.js';

/**
 * Languages to the runners of this worker. A language none of them serves fails at once, the
 * error naming the language, what this worker runs, and the tags whose workers run it when the
 * deployment says so.
 */
export class LanguageRunnerRegistry implements ScriptRunnerRegistry {
  readonly languages: readonly ScriptLanguage[];
  private readonly byLanguage = new Map<ScriptLanguage, ScriptRunner>();

  constructor(
    runners: readonly ScriptRunner[],
    private readonly workerTags: readonly string[] = [],
    private readonly tagsServing: (language: ScriptLanguage) => readonly string[] = () => [],
  ) {
    for (const runner of runners)
      for (const language of runner.languages) this.byLanguage.set(language, runner);
    this.languages = [...this.byLanguage.keys()];
  }

  run(job: ScriptJob, onLog: LogLineSink, options?: ScriptRunOptions): Promise<unknown> {
    const runner = this.byLanguage.get(job.language);
    if (!runner) return Promise.reject(this.unsupported(job.language));
    return runner.run(job, onLog, options);
  }

  private unsupported(language: ScriptLanguage): JobError {
    const here = this.workerTags.length > 0 ? ` (tags ${this.workerTags.join(', ')})` : '';
    const runs = this.languages.length > 0 ? `; it runs ${this.languages.join(', ')}` : '';
    const tags = this.tagsServing(language);
    const elsewhere =
      tags.length > 0
        ? `; workers with tag ${tags.join(' or ')} run ${language} scripts`
        : `; no worker tag is known to run ${language} scripts`;
    return new JobError(
      'UnsupportedLanguage',
      `this worker${here} has no runner for ${language} scripts${runs}${elsewhere}`,
    );
  }
}
