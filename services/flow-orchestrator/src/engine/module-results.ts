import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../store/job.store.js';
import type { FlowRun } from './flow-run.js';

/**
 * The results of a flow's modules: kept in memory as they end, read back from the jobs that
 * produced them after a restart (a loop's or branchall's is the array of its children's).
 */
@Injectable()
export class ModuleResults {
  constructor(private readonly jobs: JobStore) {}

  /** `previous_result` of module `index`: the module before's result, or the flow's input for the first. */
  async previousResult(run: FlowRun, index: number): Promise<unknown> {
    if (index === 0) return run.flowInput;
    return this.stepResult(run, index - 1);
  }

  /**
   * Module `index`'s result as the step after it sees it (and the flow's, for the last): its
   * `results.<id>` but for an aidecision that routed, whose result is its branch's.
   */
  async stepResult(run: FlowRun, index: number): Promise<unknown> {
    const module = run.modules[index];
    const status = run.status.modules[index];
    if (!status?.decision_job) return this.moduleResult(run, index);
    if (run.stepResults.has(module.id)) return run.stepResults.get(module.id);
    // An empty branch ran nothing: its result is empty, as a branchone's.
    const value =
      status.job && ended(status) ? ((await this.jobs.results([status.job]))[0]?.result ?? null) : [];
    run.stepResults.set(module.id, value);
    return value;
  }

  async moduleResult(run: FlowRun, index: number): Promise<unknown> {
    const module = run.modules[index];
    if (run.results.has(module.id)) return run.results.get(module.id);
    const value = await this.load(module, run.status.modules[index]);
    run.results.set(module.id, value);
    return value;
  }

  /** A module of this flow that ended, by id. */
  async ownResult(run: FlowRun, id: string): Promise<{ found: boolean; value: unknown }> {
    const index = run.modules.findIndex((module) => module.id === id);
    if (index < 0 || !ended(run.status.modules[index])) return { found: false, value: undefined };
    return { found: true, value: await this.moduleResult(run, index) };
  }

  async ownResults(run: FlowRun): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [index, module] of run.modules.entries()) {
      if (ended(run.status.modules[index])) out[module.id] = await this.moduleResult(run, index);
    }
    return out;
  }

  /** A retried script step runs again with the arguments of the attempt that failed. */
  async retryArgs(run: FlowRun, module: FlowModule): Promise<Record<string, unknown> | undefined> {
    const failed = run.status.retry?.failed_jobs?.at(-1);
    if (!failed || (module.value.type !== 'rawscript' && module.value.type !== 'script')) return undefined;
    if (run.status.modules[run.status.step]?.id !== module.id) return undefined;
    const row = await this.jobs.argsOf(failed);
    return row && row.kind !== 'identity' ? row.args : undefined;
  }

  private async load(module: FlowModule, status: FlowStatusModule): Promise<unknown> {
    if (!ended(status)) return undefined;
    const type = module.value.type;
    const container = type === 'forloopflow' || type === 'whileloopflow' || type === 'branchall';
    if (container && status.flow_jobs && !status.job) {
      const rows = await this.jobs.results(status.flow_jobs);
      const skipFailures = (module.value as { skip_failures?: boolean }).skip_failures === true;
      if (status.type === 'Failure') {
        return rows.find((row) => row && row.status !== 'completed')?.result ?? null;
      }
      return rows.map((row) => {
        if (!row) return null;
        if (row.status !== 'completed' && type !== 'branchall' && skipFailures) return null;
        return row.result ?? null;
      });
    }
    // A routing aidecision's `results.<id>` is its answers, from the decision's own job.
    const job = status.decision_job ?? status.job;
    if (job) return (await this.jobs.results([job]))[0]?.result ?? null;
    return [];
  }
}

function ended(status: FlowStatusModule | undefined): boolean {
  return status?.type === 'Success' || status?.type === 'Failure';
}
