import { InvalidArgumentError, type Command } from 'commander';
import { followJob } from '../jobs/follow-job.js';
import { JobsApi } from '../jobs/jobs-api.js';
import { readRunTarget, RunTargetError } from '../jobs/run-target.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface RunOptions {
  args: Record<string, unknown>;
  workspace?: string;
  memoryId?: string;
}

/**
 * `flowmesh run <file.yaml|path> --args '{...}'`: a local OpenFlow file runs as a preview, a path
 * runs the saved flow; each step is shown as it completes, then the result (exit 1 with the
 * error when the flow fails).
 */
export function registerRunCommand(program: Command, io: SyncCommandIo = processIo): void {
  program
    .command('run')
    .description('run a flow (a local OpenFlow file, or the path of a saved flow) and print its result')
    .argument(
      '<flow>',
      'an OpenFlow file (.yaml, .yml, .json) or a saved flow path (f/<folder>/..., u/<user>/...)',
    )
    .option('-a, --args <json>', 'the flow arguments as a JSON object', parseArgsObject, {})
    .option('-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)')
    .option(
      '-m, --memory-id <id>',
      "the run's memory id: AI agent steps with managed memory remember per id (e.g. a conversation)",
    )
    .action(async (flow: string, options: RunOptions) => {
      process.exitCode = await runFlow(flow, options, io);
    });
}

export async function runFlow(flow: string, options: RunOptions, io: SyncCommandIo): Promise<number> {
  try {
    const target = await readRunTarget(flow);
    const api = new JobsApi(new RegistryHttp(io.settings(options.workspace)));
    const run = options.memoryId === undefined ? {} : { memoryId: options.memoryId };
    const jobId =
      target.kind === 'file'
        ? await api.runFlowPreview(target.value, { ...target.defaults, ...options.args }, undefined, run)
        : await api.runFlowByPath(target.path, options.args, run);
    io.stderr(`job ${jobId} started\n`);
    const outcome = await followJob(api, jobId, { onLine: (line) => io.stderr(`${line}\n`) });
    if (outcome.success === false) {
      io.stderr(`flow failed: ${JSON.stringify(outcome.result, null, 2)}\n`);
      return 1;
    }
    io.stdout(`${JSON.stringify(outcome.result, null, 2)}\n`);
    return 0;
  } catch (error) {
    return runFailureExit(error, io);
  }
}

/** A run that could not start or be followed, said in one line (exit 1); anything else is thrown. */
export function runFailureExit(error: unknown, io: SyncCommandIo): number {
  if (error instanceof RunTargetError) {
    io.stderr(`${error.message}\n`);
    return 1;
  }
  if (error instanceof RegistryRequestError) {
    io.stderr(`${error.code}: ${error.message}\n`);
    return 1;
  }
  throw error;
}

export function parseArgsObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"name": "world"}\'');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"name": "world"}\'');
  }
  return value as Record<string, unknown>;
}
