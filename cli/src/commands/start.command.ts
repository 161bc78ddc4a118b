import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { MESH_PROCESSES, type MeshProcess } from '@flowmesh/contracts';
import { Option, type Command } from 'commander';
import { readCliSettings } from '../cli.config.js';
import { exampleLlmFrom, saveExampleLlm } from '../jobs/example-llm.js';
import { runExample } from '../jobs/run-example.js';
import {
  sessionAdminToken,
  sessionJobTokenKey,
  type SessionAdminToken,
} from '../jobs/session-admin-token.js';
import { localDatabaseRoles } from '../mesh/local-database-roles.js';
import { createLogFormatter } from '../mesh/log-line.formatter.js';
import { LocalMeshError, startLocalMesh } from '../mesh/local-mesh.js';
import { localPostgres, LocalPostgresError, type LocalPostgres } from '../mesh/local-postgres.js';
import { MAX_RESTARTS, MeshStartError } from '../mesh/mesh-runner.js';
import { RegistryHttp } from '../sync/registry-connection.js';
import { describeExit } from '../mesh/wait-ready.js';
import { redactUrls } from '../mesh/infrastructure-check.js';
import { renderStatusTable } from '../status/status-table.js';
import { parsePositiveInt } from './option-parsers.js';

interface StartOptions {
  startNats: boolean;
  logFormat: 'pretty' | 'json';
  readyTimeout: number;
  example: boolean;
}

const EXAMPLE_FLOW = join('examples', 'flows', 'hello.yaml');
const AGENT_EXAMPLE_FLOW = join('examples', 'flows', 'agent.yaml');
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * `flowmesh start` (what `npm start` runs): all six services and the orchestrator worker, each
 * its own process, behind one HTTP entry point, until Ctrl-C.
 */
export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('start the whole mesh on this machine: six services, one worker, one HTTP entry point')
    .option('--no-start-nats', 'never start a local nats-server, even when none is running')
    .addOption(
      new Option('--log-format <format>', 'how process logs are shown')
        .choices(['pretty', 'json'])
        .default('pretty'),
    )
    .option(
      '--ready-timeout <ms>',
      'how long the services may take to become ready',
      parsePositiveInt,
      60_000,
    )
    .option('--no-example', 'skip running examples/flows/hello.yaml after start-up')
    .action(async (options: StartOptions) => {
      process.exitCode = await runStart(options);
    });
}

async function runStart(options: StartOptions): Promise<number> {
  let settings = readCliSettings(process.env);
  const format = createLogFormatter([...MESH_PROCESSES.map((p) => p.name), 'nats-server', 'postgres'], {
    format: options.logFormat,
    color: Boolean(process.stdout.isTTY),
  });
  const say = (message: string) => process.stdout.write(`flowmesh: ${message}\n`);

  // Installed before start-up, so a Ctrl-C while services boot still stops them all.
  let stopRequested: (signal: string) => void = () => {};
  const stopSignal = new Promise<string>((resolve) => {
    stopRequested = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => stopRequested(signal);
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);

  let database: LocalPostgres | undefined;
  try {
    database = await localPostgres({
      databaseUrlGiven: settings.databaseUrlGiven,
      databaseUrl: settings.databaseUrl,
      port: settings.localPostgresPort,
      workDir: process.cwd(),
      onLine: (line) => process.stdout.write(`${format('postgres', line)}\n`),
      onNotice: say,
    });
    settings = { ...settings, databaseUrl: database.databaseUrl };
    const nats = settings.natsUrlGiven ? `NATS ${redactUrls(settings.natsUrl)}` : "the mesh's own NATS";
    say(`starting ${MESH_PROCESSES.length} processes against ${nats} (prefix ${settings.subjectPrefix})`);
    const admin = await sessionAdminToken(settings.env, process.cwd());
    const jobTokenKey = await sessionJobTokenKey(settings.env, process.cwd());
    const registryOrApiEnv = (meshProcess: MeshProcess): NodeJS.ProcessEnv => {
      // Only the registry reads it; workers, which run user code, never see it.
      if (meshProcess.name === 'resource-registry')
        return { FLOWMESH_ADMIN_TOKEN: admin.token, FLOWMESH_JOB_TOKEN_KEY: jobTokenKey };
      // Approval links point at the entry point users reach, wherever it listens.
      if (meshProcess.name === 'flow-orchestrator' && !settings.env.FLOWMESH_PUBLIC_URL) {
        return { FLOWMESH_PUBLIC_URL: `http://${settings.httpHost}:${settings.httpPort}` };
      }
      return {};
    };
    const databaseUrlOf = await localDatabaseRoles(settings.databaseUrl, process.cwd(), say);
    const local = await startLocalMesh({
      settings,
      startNats: options.startNats,
      envOf: (meshProcess) => ({
        ...(databaseUrlOf ? { DATABASE_URL: databaseUrlOf(meshProcess) } : {}),
        ...registryOrApiEnv(meshProcess),
      }),
      workDir: process.cwd(),
      readyTimeoutMs: options.readyTimeout,
      onLine: (name, line) => process.stdout.write(`${format(name, line)}\n`),
      onNotice: say,
      onApiReady: (entryUrl) => say(`API ready: ${entryUrl} (starting the other processes)`),
    });

    // Loaded here: the NATS client and its dependencies cost the CLI's start ~0.6 s of CPU.
    const { queryMeshStatus } = await import('../status/query-status.js');
    // Started processes must not outlive a failure to ask them how they are.
    const statuses = await queryMeshStatus({
      natsUrl: local.natsUrl,
      subjectPrefix: settings.subjectPrefix,
      timeoutMs: 2_000,
    }).catch(async (error: unknown) => {
      await local.stop();
      throw error;
    });
    process.stdout.write(`\n${renderStatusTable(statuses)}\n\n`);
    say(describeAdminToken(admin));
    if (options.example) await runExampleFlow(local.entryUrl, admin.token, say);
    say(
      `mesh ready: ${local.entryUrl}, gRPC ${local.grpcAddress} (routes: flowmesh route-table; health: flowmesh status); Ctrl-C to stop`,
    );

    const outcome = await Promise.race([
      stopSignal.then((signal) => ({ kind: 'signal' as const, signal })),
      local.mesh.crashed.then((crash) => ({ kind: 'crash' as const, crash })),
    ]);
    if (outcome.kind === 'crash') {
      say(
        `${outcome.crash.name} stopped unexpectedly (${describeExit(outcome.crash.exit)}) ${MAX_RESTARTS + 1} times within 10 min; stopping the mesh`,
      );
    } else {
      say(`${outcome.signal} received; stopping the mesh`);
    }
    const reports = await local.stop();
    const unclean = reports.filter((r) => r.killed || r.exit.code !== 0);
    for (const report of unclean) {
      say(
        `${report.name} ${report.killed ? `did not stop in time and was killed` : `exited with ${describeExit(report.exit)}`}`,
      );
    }
    if (outcome.kind === 'crash' || unclean.length > 0) return 1;
    say('stopped');
    return 0;
  } catch (error) {
    if (error instanceof LocalMeshError || error instanceof LocalPostgresError) {
      process.stderr.write(`flowmesh: ${error.message}\n`);
      return 1;
    }
    if (error instanceof MeshStartError) {
      process.stderr.write(`flowmesh: ${error.message}; the mesh was stopped\n`);
      return 1;
    }
    throw error;
  } finally {
    // Last: the mesh's processes have stopped (or never started) by now.
    await database?.stop();
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

/**
 * A first thing to try once the mesh is up: the hello example, run through the entry point; then
 * the agent example, against the OpenAI-compatible endpoint `FLOWMESH_EXAMPLE_LLM_URL` names.
 */
async function runExampleFlow(
  entryUrl: string,
  token: string,
  say: (message: string) => void,
): Promise<void> {
  if (existsSync(EXAMPLE_FLOW)) await runExample({ file: EXAMPLE_FLOW, entryUrl, token, say });
  if (!existsSync(AGENT_EXAMPLE_FLOW)) return;
  const llm = exampleLlmFrom(process.env);
  if (!llm) {
    say(
      `example ${AGENT_EXAMPLE_FLOW} not run: set FLOWMESH_EXAMPLE_LLM_URL (and FLOWMESH_EXAMPLE_LLM_KEY, FLOWMESH_EXAMPLE_LLM_MODEL) to an OpenAI-compatible endpoint`,
    );
    return;
  }
  try {
    const http = new RegistryHttp({ url: entryUrl, token, workspace: 'main' });
    const resource = await saveExampleLlm(http, llm);
    say(`example ${AGENT_EXAMPLE_FLOW}: ${llm.url} saved as ${resource}`);
    await runExample({
      file: AGENT_EXAMPLE_FLOW,
      entryUrl,
      token,
      say,
      timeoutMs: 120_000,
      args: { llm: resource, ...(llm.model ? { model: llm.model } : {}) },
    });
  } catch (error) {
    say(`example ${AGENT_EXAMPLE_FLOW} not run: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Where the admin token is, never the token itself: this output often ends up in logs. */
function describeAdminToken(admin: SessionAdminToken): string {
  if (admin.file === undefined) return 'the first admin token is FLOWMESH_ADMIN_TOKEN';
  const file = relative(process.cwd(), admin.file);
  return `the first admin token of a fresh database is in ${file}: export FLOWMESH_TOKEN=$(cat ${file})`;
}
