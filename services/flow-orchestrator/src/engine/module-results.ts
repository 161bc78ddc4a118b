import type { FlowModule, FlowStatusModule } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobRepository } from '../jobs/job.repository.js';
import type { FlowRun } from './flow-run.js';

/**
 * The results of a flow's modules: kept in memory as they end, read back from the jobs that
 * produced them after a restart (a loop's or branchall's is the array of its children's).
 */
@Injectable()
export class ModuleResults {
  constructor(private readonly jobs: JobRepository) {}

  /** `previous_result` of module `index`: the module before's result, or the flow's input for the first. */
  async previousResult(run: FlowRun, index: number): Promise<unknown> {
    if (index === 0) return run.flowInput;
    return this.moduleResult(run, index - 1);
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
    const rows = await this.jobs.query<{ args: Record<string, unknown>; kind: string }>(
      `SELECT args, kind FROM job WHERE id = $1`,
      [failed],
    );
    return rows[0] && rows[0].kind !== 'identity' ? rows[0].args : undefined;
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
    if (status.job) return (await this.jobs.results([status.job]))[0]?.result ?? null;
    return [];
  }
}

function ended(status: FlowStatusModule | undefined): boolean {
  return status?.type === 'Success' || status?.type === 'Failure';
}
