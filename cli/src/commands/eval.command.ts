import { join } from 'node:path';
import type { Command } from 'commander';
import { evalTable, replayReport } from '../evals/eval-table.js';
import { defaultRecordingsDir } from '../evals/recording-files.js';
import { EvalCasesError } from '../evals/eval-cases.js';
import { runEval } from '../evals/run-eval.js';
import { JobsApi } from '../jobs/jobs-api.js';
import { readRunTarget } from '../jobs/run-target.js';
import { RegistryHttp } from '../sync/registry-connection.js';
import { processIo, type SyncCommandIo } from './push.command.js';
import { runFailureExit } from './run.command.js';

interface EvalRunOptions {
  cases: string;
  out?: string;
  json?: boolean;
  workspace?: string;
  record?: boolean;
  replay?: boolean;
  recordings?: string;
}

/**
 * `flowmesh eval run <flow> --cases cases.jsonl`: the flow once per case, each run stored (the
 * job, and a line of the results file) with the version of every agent it links, then a
 * pass/fail table; exit 1 when a case failed. `--record` keeps each case's model answers in a
 * file; `--replay` runs the cases against those files with no provider call.
 */
export function registerEvalCommands(program: Command, io: SyncCommandIo = processIo): void {
  const evals = program.command('eval').description('evaluate flows against expected results');
  evals
    .command('run')
    .description('run a flow over cases and compare each result with the expected one')
    .argument('<flow>', 'an OpenFlow file (.yaml, .yml, .json) or a saved flow path (f/<folder>/...)')
    .requiredOption(
      '-c, --cases <file>',
      'JSON lines: {"name"?, "args": {...}, "expected": ..., "match"?: "exact"|"subset"}',
    )
    .option('-o, --out <file>', 'results file (JSON lines; default .flowmesh/evals/<time>.jsonl)')
    .option('--json', 'print the records as JSON instead of a table')
    .option('--record', "keep every model answer of each case's run in <recordings>/<case>.json (for git)")
    .option(
      '--replay',
      'answer every model call from <recordings>/<case>.json, calling no provider; a request that differs fails the case',
    )
    .option(
      '--recordings <dir>',
      'where recordings are kept (default: <cases file name>.recordings/ beside it)',
    )
    .option('-w, --workspace <id>', 'workspace (default: $FLOWMESH_WORKSPACE or main)')
    .action(async (flow: string, options: EvalRunOptions) => {
      process.exitCode = await runEvalCommand(flow, options, io);
    });
}

export async function runEvalCommand(
  flow: string,
  options: EvalRunOptions,
  io: SyncCommandIo,
): Promise<number> {
  const out =
    options.out ?? join('.flowmesh', 'evals', `${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
  try {
    if (options.record && options.replay) throw new EvalCasesError('--record and --replay: choose one');
    const mode = options.record ? 'record' : options.replay ? 'replay' : undefined;
    const recordingsDir = options.recordings ?? defaultRecordingsDir(options.cases);
    const target = await readRunTarget(flow);
    const http = new RegistryHttp(io.settings(options.workspace));
    const records = await runEval(new JobsApi(http), http, target, {
      casesFile: options.cases,
      out,
      ...(mode ? { recording: { mode, dir: recordingsDir } } : {}),
      onRecord: (record) =>
        io.stderr(
          `${record.case}: ${record.pass ? 'pass' : 'FAIL'} (job ${record.job})\n${replayReport(record)}`,
        ),
    });
    io.stdout(options.json ? `${JSON.stringify(records, null, 2)}\n` : evalTable(records));
    io.stderr(`results stored in ${out}\n`);
    if (mode === 'record') io.stderr(`recordings written to ${recordingsDir}\n`);
    return records.every((record) => record.pass) ? 0 : 1;
  } catch (error) {
    if (!(error instanceof EvalCasesError)) return runFailureExit(error, io);
    io.stderr(`${error.message}\n`);
    return 1;
  }
}
