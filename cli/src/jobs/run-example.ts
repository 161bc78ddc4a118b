import { followJob, FollowTimeoutError } from './follow-job.js';
import { JobsApi } from './jobs-api.js';
import { readRunTarget, RunTargetError } from './run-target.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';

export interface RunExampleOptions {
  readonly file: string;
  readonly entryUrl: string;
  readonly token: string;
  readonly workspace?: string;
  readonly timeoutMs?: number;
  /** Over the flow's schema defaults. */
  readonly args?: Record<string, unknown>;
  readonly say: (message: string) => void;
}

/**
 * Runs an example flow through the entry point as `flowmesh run` would, saying each step and the
 * result. Never throws: a mesh that cannot run it yet is told, not fatal to `flowmesh start`.
 */
export async function runExample(options: RunExampleOptions): Promise<boolean> {
  const { file, say } = options;
  try {
    const target = await readRunTarget(file);
    if (target.kind !== 'file') throw new RunTargetError(`${file} is not a flow file`);
    const api = new JobsApi(
      new RegistryHttp({
        url: options.entryUrl,
        token: options.token,
        workspace: options.workspace ?? 'main',
      }),
    );
    const jobId = await api.runFlowPreview(target.value, { ...target.defaults, ...options.args });
    say(`example ${file}: job ${jobId}`);
    const outcome = await followJob(api, jobId, {
      onLine: (line) => say(`  ${line}`),
      timeoutMs: options.timeoutMs ?? 30_000,
    });
    const result = JSON.stringify(outcome.result);
    say(
      outcome.success === false ? `example ${file} failed: ${result}` : `example ${file} returned ${result}`,
    );
    return outcome.success !== false;
  } catch (error) {
    if (error instanceof RegistryRequestError && error.code === 'UNAUTHENTICATED') {
      say(
        `example ${file} not run: the admin token was refused (this database already has its first admin; set FLOWMESH_ADMIN_TOKEN to its token)`,
      );
      return false;
    }
    if (
      error instanceof RegistryRequestError ||
      error instanceof RunTargetError ||
      error instanceof FollowTimeoutError
    ) {
      say(`example ${file} not run: ${error.message}`);
      return false;
    }
    throw error;
  }
}
