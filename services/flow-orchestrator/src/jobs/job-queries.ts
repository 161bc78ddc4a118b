import {
  isTerminalJobStatus,
  MeshError,
  type Job,
  type JobLogsReply,
  type JobSummary,
  type ListJobsRequest,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import type { JobRecord } from '../store/job.record.js';
import { toJob, toJobSummary } from './job-row.mapper.js';
import { JobListingStore } from '../store/job-listing.store.js';
import { JobStore } from '../store/job.store.js';

type ListFilter = Omit<ListJobsRequest, 'actor'>;

/** Reads of jobs for the run API (which decides who may see them): a job, lists, logs, a node's result. */
@Injectable()
export class JobQueries {
  constructor(
    private readonly jobs: JobStore,
    private readonly listing: JobListingStore,
  ) {}

  /** The job when it exists in `workspace`; whether the caller may see it is not asked here. */
  async find(workspace: string, id: string): Promise<Job | undefined> {
    const record = await this.jobs.load(id);
    return record && record.workspace === workspace ? toJob(await this.withLiveActions(record)) : undefined;
  }

  /**
   * A running flow shows each AI step in progress with its actions so far on the module
   * (`agent_actions`, `agent_actions_success`), as Windmill writes them live: read from the step's
   * job, where agent-runtime reports them one by one (a step that ended had them copied then).
   */
  private async withLiveActions(record: JobRecord): Promise<JobRecord> {
    const status = record.flow_status;
    if (!status || isTerminalJobStatus(record.status)) return record;
    const agents = agentModuleIds(record.raw_flow);
    const live = status.modules.filter(
      (module) =>
        module.job !== undefined &&
        module.id !== undefined &&
        agents.has(module.id) &&
        module.type !== 'Success' &&
        module.type !== 'Failure',
    );
    if (live.length === 0) return record;
    const steps = await this.jobs.loadMany(live.map((module) => module.job!));
    return {
      ...record,
      flow_status: {
        ...status,
        modules: status.modules.map((module) => {
          const step = live.includes(module) ? steps.get(module.job!) : undefined;
          if (!step?.runtime.agentActions) return module;
          return {
            ...module,
            agent_actions: step.runtime.agentActions as never,
            agent_actions_success: step.runtime.agentActionsSuccess ?? [],
          };
        }),
      },
    };
  }

  async list(filter: ListFilter): Promise<JobSummary[]> {
    const rows = await this.listing.list(filter);
    return rows.map((row) =>
      toJobSummary({ ...row, priority: row.priority === null ? null : Number(row.priority) }),
    );
  }

  /** The job's logs from character `offset` on. */
  async logs(workspace: string, id: string, offset: number): Promise<Omit<JobLogsReply, 'completed'>> {
    const row = await this.listing.logsOf(id);
    if (!row?.workspace || row.workspace !== workspace)
      throw new MeshError('NOT_FOUND', `job ${id} not found`, { id });
    const all = row.logs ?? '';
    return { logs: all.slice(offset), next_offset: all.length };
  }

  /**
   * The result of module `nodeId` in the run of `flowJobId`: a module of that flow (a loop's or
   * branchall's as the list of its children's), or the latest job that ran that step anywhere
   * below it. NOT_FOUND while it has none.
   */
  async resultByNode(workspace: string, flowJobId: string, nodeId: string): Promise<unknown> {
    const flow = await this.jobs.load(flowJobId);
    if (!flow || flow.workspace !== workspace) throw new MeshError('NOT_FOUND', `job ${flowJobId} not found`);
    const status = flow.flow_status?.modules.find((module) => module.id === nodeId);
    if (status && (status.type === 'Success' || status.type === 'Failure')) {
      if (status.flow_jobs && !status.job) {
        return (await this.jobs.results(status.flow_jobs)).map((row) => row?.result ?? null);
      }
      if (status.job) return (await this.jobs.results([status.job]))[0]?.result ?? null;
      return [];
    }
    const latest = await this.jobs.latestStepResult(flow.root_job, nodeId);
    if (latest.found) return latest.result;
    throw new MeshError('NOT_FOUND', `no result yet for node ${nodeId} of job ${flowJobId}`, {
      id: flowJobId,
      node_id: nodeId,
    });
  }
}

/** The ids of a flow's top-level AI agent modules (`raw_flow.modules[].value.type`). */
function agentModuleIds(rawFlow: Record<string, unknown> | null): Set<string> {
  const modules = (rawFlow as { modules?: unknown } | null)?.modules;
  const ids = new Set<string>();
  if (!Array.isArray(modules)) return ids;
  for (const module of modules as Array<{ id?: unknown; value?: { type?: unknown } }>)
    if (typeof module?.id === 'string' && module.value?.type === 'aiagent') ids.add(module.id);
  return ids;
}
