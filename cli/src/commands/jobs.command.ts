import { AgentStreamEnvelopeSchema } from '@flowmesh/contracts';
import { InvalidArgumentError, type Command } from 'commander';
import { JobsApi, type ResumeRequest } from '../jobs/jobs-api.js';
import { RegistryHttp, RegistryRequestError } from '../sync/registry-connection.js';
import { processIo, type SyncCommandIo } from './push.command.js';

interface JobsOptions {
  workspace?: string;
}

interface ResumeOptions extends JobsOptions {
  payload: unknown;
  approve?: boolean;
  reject?: boolean;
  deny?: boolean;
  comment?: string;
  answer?: string[];
  resumeId?: number;
}

interface RestartOptions extends JobsOptions {
  from: string;
  iteration?: number;
}

interface CancelOptions extends JobsOptions {
  reason?: string;
}

/** `flowmesh jobs get|logs|stream|resume|restart|cancel <id>`: look at and act on one job through the mesh's HTTP API. */
export function registerJobsCommands(program: Command, io: SyncCommandIo = processIo): void {
  const jobs = program.command('jobs').description('look at and act on jobs of a running mesh');
  const workspace = ['-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)'] as const;

  jobs
    .command('get')
    .description('print a job as JSON (with its flow_status)')
    .argument('<id>', 'job id')
    .option(...workspace)
    .action(async (id: string, options: JobsOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        io.stdout(`${JSON.stringify(await api.getJob(id), null, 2)}\n`);
      });
    });

  jobs
    .command('logs')
    .description("print a job's logs")
    .argument('<id>', 'job id')
    .option(...workspace)
    .action(async (id: string, options: JobsOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        io.stdout(await api.getLogs(id));
      });
    });

  jobs
    .command('stream')
    .description(
      "follow a run's streaming AI steps: their text on stdout as it comes, their tool calls on stderr",
    )
    .argument('<id>', 'the run (or one AI step) job id')
    .option(...workspace)
    .action(async (id: string, options: JobsOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        const end = await api.stream(id, (_event, data) => printStreamEvent(io, data));
        io.stdout('\n');
        if (end.success === false)
          throw new RegistryRequestError(0, 'RUN_FAILED', `the run ended ${end.status}`);
      });
    });

  jobs
    .command('resume')
    .description(
      "approve (or reject) a flow waiting on an approval step, or an AI step's approval request, or answer its question, as yourself",
    )
    .argument('<id>', 'the suspended flow job id, or the parked AI step job id')
    .option(
      '-p, --payload <json>',
      'the resume payload (JSON), seen by the next step as `resume`',
      parseJson,
      {},
    )
    .option('--approve', 'approve (the default)')
    .option(
      '--reject',
      'disapprove: a flow fails with SuspendedDisapproved; an AI step tells its model "not run"',
    )
    .option('--deny', 'the same as --reject')
    .option('--comment <text>', "the approver's comment (payload.comment): an AI step's model reads it")
    .option(
      '--answer <text>',
      "answer an AI step's question (payload.answer); repeat it to pick several choices",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--resume-id <n>', 'the resume id of the approval link to answer', parseResumeId)
    .option(...workspace)
    .action(async (id: string, options: ResumeOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        const reply = await api.resume(id, resumeRequest(options));
        io.stdout(`${typeof reply === 'string' ? reply : JSON.stringify(reply)}\n`);
      });
    });

  jobs
    .command('restart')
    .description(
      'run an ended flow again from one of its steps: the steps before it are not run again (their results are reused), the same args',
    )
    .argument('<id>', 'the ended flow run job id')
    .requiredOption('--from <step>', 'the id of the top-level step to start from')
    .option(
      '--iteration <n>',
      'for a sequential for loop or branchall step: keep its first n iterations or branches, go on from there',
      parseResumeId,
    )
    .option(...workspace)
    .action(async (id: string, options: RestartOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        io.stdout(`${await api.restart(id, options.from, options.iteration)}\n`);
      });
    });

  jobs
    .command('cancel')
    .description('cancel a queued, running or suspended job')
    .argument('<id>', 'job id')
    .option('-r, --reason <text>', 'why, recorded on the job')
    .option(...workspace)
    .action(async (id: string, options: CancelOptions) => {
      process.exitCode = await withApi(io, options, async (api) => {
        io.stdout(`${await api.cancel(id, options.reason)}\n`);
      });
    });
}

async function withApi(
  io: SyncCommandIo,
  options: JobsOptions,
  action: (api: JobsApi) => Promise<void>,
): Promise<number> {
  try {
    await action(new JobsApi(new RegistryHttp(io.settings(options.workspace))));
    return 0;
  } catch (error) {
    if (!(error instanceof RegistryRequestError)) throw error;
    io.stderr(`${error.code}: ${error.message}\n`);
    return 1;
  }
}

/** One event of a run's stream, as a terminal shows it. */
function printStreamEvent(io: SyncCommandIo, data: unknown): void {
  const envelope = AgentStreamEnvelopeSchema.safeParse(data);
  if (!envelope.success) return;
  const { event } = envelope.data;
  if (event.type === 'token_delta') io.stdout(event.content);
  else if (event.type === 'tool_execution') io.stderr(`\n→ ${event.function_name}\n`);
  else if (event.type === 'tool_result') io.stderr(`${event.success ? '✓' : '✗'} ${event.function_name}\n`);
}

/** The answer the flags say: `--comment` and `--answer` join the payload, which must then be an object. */
function resumeRequest(options: ResumeOptions): ResumeRequest {
  const reject = options.reject === true || options.deny === true;
  if (reject && options.approve)
    throw new RegistryRequestError(0, 'INVALID_ARGUMENT', '--approve and --reject: give one of them');
  if (reject && options.answer)
    throw new RegistryRequestError(0, 'INVALID_ARGUMENT', '--answer answers a question: it cannot --reject');
  let payload = options.payload;
  if (options.comment !== undefined || options.answer) {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw new RegistryRequestError(
        0,
        'INVALID_ARGUMENT',
        '--payload must be a JSON object to take --comment or --answer',
      );
    const answer = options.answer?.length === 1 ? options.answer[0] : options.answer;
    payload = {
      ...payload,
      ...(options.comment === undefined ? {} : { comment: options.comment }),
      ...(answer === undefined ? {} : { answer }),
    };
  }
  return {
    payload,
    approve: !reject,
    ...(options.resumeId === undefined ? {} : { resumeId: options.resumeId }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidArgumentError('must be JSON');
  }
}

function parseResumeId(text: string): number {
  if (!/^\d{1,10}$/.test(text)) throw new InvalidArgumentError('must be a whole number');
  return Number(text);
}
