import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FlowSchema } from '@flowmesh/contracts';
import { followJob } from '../jobs/follow-job.js';
import type { JobsApi } from '../jobs/jobs-api.js';
import type { RunTarget } from '../jobs/run-target.js';
import type { RegistryHttp } from '../sync/registry-connection.js';
import { linkedAgentVersions } from './agent-versions.js';
import { matches, parseEvalCases, type EvalCase } from './eval-cases.js';

/** One case's run, as stored (a line of the results file) and shown. */
export interface EvalRecord {
  readonly case: string;
  readonly job: string;
  /** The flow run, and the version each linked agent was at when the run was enqueued. */
  readonly flow: string;
  /** A saved flow's version; null for a file. */
  readonly flow_version: number | null;
  /** The flow value's digest (its decision steps and prompts as run), for a file as for a path. */
  readonly flow_sha256: string;
  readonly agents: Record<string, number | null>;
  readonly enqueued_at: string;
  readonly success: boolean;
  readonly result: unknown;
  readonly expected: unknown;
  readonly match: EvalCase['match'];
  readonly pass: boolean;
}

export interface EvalRunOptions {
  readonly casesFile: string;
  /** The results file each record is appended to (JSON lines). */
  readonly out: string;
  readonly onRecord?: (record: EvalRecord) => void;
}

/**
 * Runs the flow once per case, one after the other: reads the versions of the agents it links,
 * enqueues the run with `pin_agents` (the run resolves those agents once, so its result belongs
 * to that prompt state), waits for its end, compares the result, and appends the record.
 */
export async function runEval(
  api: JobsApi,
  http: RegistryHttp,
  target: RunTarget,
  options: EvalRunOptions,
): Promise<EvalRecord[]> {
  const cases = parseEvalCases(await readFile(options.casesFile, 'utf8'), options.casesFile);
  const saved = target.kind === 'path' ? await http.get(`flows/get/${target.path}`, FlowSchema) : undefined;
  const flowValue = target.kind === 'file' ? target.value : saved!.value;
  const flowSha = createHash('sha256').update(JSON.stringify(flowValue)).digest('hex').slice(0, 16);
  await mkdir(dirname(options.out), { recursive: true });
  const records: EvalRecord[] = [];
  for (const evalCase of cases) {
    const agents = await linkedAgentVersions(http, flowValue);
    const enqueuedAt = new Date().toISOString();
    const run = { pinAgents: true };
    const job =
      target.kind === 'file'
        ? await api.runFlowPreview(target.value, { ...target.defaults, ...evalCase.args }, undefined, run)
        : await api.runFlowByPath(target.path, evalCase.args, run);
    // An agent edited while the run was enqueued: which version it pinned is not known (null).
    const after = await linkedAgentVersions(http, flowValue);
    for (const [path, version] of Object.entries(agents)) if (after[path] !== version) agents[path] = null;
    const outcome = await followJob(api, job, { onLine: () => undefined });
    const success = outcome.success !== false;
    const record: EvalRecord = {
      case: evalCase.name,
      job,
      flow: target.kind === 'file' ? target.file : target.path,
      flow_version: saved?.version_id ?? null,
      flow_sha256: flowSha,
      agents,
      enqueued_at: enqueuedAt,
      success,
      result: outcome.result,
      expected: evalCase.expected,
      match: evalCase.match,
      pass: success && matches(outcome.result, evalCase.expected, evalCase.match),
    };
    await appendFile(options.out, `${JSON.stringify(record)}\n`);
    records.push(record);
    options.onRecord?.(record);
  }
  return records;
}
