import { createHash, randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  FlowSchema,
  RecordingAnswerSchema,
  type RecordingMode,
  type RecordingRef,
  type ReplayMismatch,
} from '@flowmesh/contracts';
import { followJob } from '../jobs/follow-job.js';
import type { JobsApi } from '../jobs/jobs-api.js';
import type { RunTarget } from '../jobs/run-target.js';
import type { RegistryHttp } from '../sync/registry-connection.js';
import { linkedAgentVersions } from './agent-versions.js';
import { matches, parseEvalCases, type EvalCase } from './eval-cases.js';
import {
  checkDistinctFiles,
  readRecordingFile,
  recordingFileOf,
  writeRecordingFile,
} from './recording-files.js';
import { RegistryRequestError } from '../sync/registry-connection.js';

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
  /** With `--record` / `--replay`: the case's recording file, and how the replay went. */
  readonly recording?: EvalRecordingOutcome;
}

export interface EvalRecordingOutcome {
  readonly mode: RecordingMode;
  readonly file: string;
  /** Model calls recorded (record) or in the recording (replay). */
  readonly calls: number;
  /** Replay: the first request that differed from the recording, else null. */
  readonly mismatch?: ReplayMismatch | null;
  /** Replay: recorded answers no request asked for (the run asked fewer than when it was recorded). */
  readonly unused?: number;
}

export interface EvalRunOptions {
  readonly casesFile: string;
  /** The results file each record is appended to (JSON lines). */
  readonly out: string;
  readonly onRecord?: (record: EvalRecord) => void;
  /**
   * `record`: each case's model answers are kept and written to `<dir>/<case>.json`; `replay`:
   * each case runs against its file, with no provider call.
   */
  readonly recording?: { readonly mode: RecordingMode; readonly dir: string };
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
  const recordings = options.recording;
  if (recordings)
    checkDistinctFiles(
      recordings.dir,
      cases.map((evalCase) => evalCase.name),
    );
  // Every recording is read before the first run: a missing one stops the eval at once.
  const replays =
    recordings?.mode === 'replay'
      ? await Promise.all(
          cases.map((evalCase) => readRecordingFile(recordingFileOf(recordings.dir, evalCase.name))),
        )
      : undefined;
  const records: EvalRecord[] = [];
  for (const [index, evalCase] of cases.entries()) {
    const agents = await linkedAgentVersions(http, flowValue);
    const recording: RecordingRef | undefined = recordings
      ? { mode: recordings.mode, id: randomUUID() }
      : undefined;
    if (recording && replays) await http.putText(`ai/recordings/${recording.id}`, { calls: replays[index] });
    const enqueuedAt = new Date().toISOString();
    const run = { pinAgents: true, ...(recording ? { recording } : {}) };
    const job =
      target.kind === 'file'
        ? await api.runFlowPreview(target.value, { ...target.defaults, ...evalCase.args }, undefined, run)
        : await api.runFlowByPath(target.path, evalCase.args, run);
    // An agent edited while the run was enqueued: which version it pinned is not known (null).
    const after = await linkedAgentVersions(http, flowValue);
    for (const [path, version] of Object.entries(agents)) if (after[path] !== version) agents[path] = null;
    const outcome = await followJob(api, job, { onLine: () => undefined });
    const success = outcome.success !== false;
    const recorded =
      recording && recordings
        ? await settleRecording(http, recording, recordingFileOf(recordings.dir, evalCase.name), {
            case: evalCase.name,
            flow: target.kind === 'file' ? target.file : target.path,
          })
        : undefined;
    const replayed = recorded ? !recorded.mismatch && !recorded.unused : true;
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
      pass: success && replayed && matches(outcome.result, evalCase.expected, evalCase.match),
      ...(recorded ? { recording: recorded } : {}),
    };
    await appendFile(options.out, `${JSON.stringify(record)}\n`);
    records.push(record);
    options.onRecord?.(record);
  }
  return records;
}

/**
 * After a case's run: a recording's calls written to its file; a replay's outcome read back (the
 * first request that differed, the recorded answers left unused). A run that called no model
 * left no recording: zero calls.
 */
async function settleRecording(
  http: RegistryHttp,
  recording: RecordingRef,
  file: string,
  about: { case: string; flow: string },
): Promise<EvalRecordingOutcome> {
  const stored = await http
    .get(`ai/recordings/${recording.id}`, RecordingAnswerSchema)
    .catch((error: unknown) => {
      if (error instanceof RegistryRequestError && error.status === 404) return undefined;
      throw error;
    });
  const calls = stored?.calls ?? [];
  if (recording.mode === 'record') {
    await writeRecordingFile(file, { flowmesh_recording: 1, ...about, calls });
    return { mode: 'record', file, calls: calls.length };
  }
  return {
    mode: 'replay',
    file,
    calls: calls.length,
    mismatch: stored?.mismatch ?? null,
    unused: stored?.unused ?? 0,
  };
}
