import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { LockerClient, ScriptLanguage } from '@flowmesh/contracts';
import type { OnModuleDestroy } from '@nestjs/common';
import type { ScriptRunner } from '../ports/script-runner.port.js';
import { BashRunner } from './bash/bash.runner.js';
import { resolveScriptSandbox, sandboxLaunch, type ScriptSandbox } from './isolation/script-sandbox.js';
import { SandboxedThreadJobs } from './isolation/sandboxed-thread-jobs.js';
import { parseUidRange, SandboxUids } from './isolation/sandbox-uids.js';
import { LanguageRunnerRegistry } from './language-runner.registry.js';
import { PostgresqlRunner } from './postgresql/postgresql.runner.js';
import { JobWorkdirs } from './process/job-workdir.js';
import { PythonPackages } from './python/python-packages.js';
import { PythonRunner } from './python/python.runner.js';
import type { ScriptRunnersConfig } from './script-runners.config.js';
import { PackageInstaller } from './typescript/package-installer.js';
import { TypeScriptProcessRunner } from './typescript/typescript-process.runner.js';
import { TypeScriptRunner } from './typescript/typescript.runner.js';
import type { WorkspaceScriptReader } from './typescript/workspace-imports.js';

export interface ScriptRunnersDeployment {
  /** Tags of this worker, named when a language is not served here. */
  readonly workerTags: readonly string[];
  /** The memory limit most jobs ask for, whose TypeScript threads are started at once. */
  readonly defaultMemoryMb: number;
  /** Jobs the worker runs at once: each process job gets a uid of its own (default 64). */
  readonly concurrency?: number;
  /** Which worker tags run a language this worker does not, when the deployment knows. */
  readonly tagsServing?: (language: ScriptLanguage) => readonly string[];
  /** Where warnings about the runners go (a user scripts cannot run as), and the sandbox's own output. */
  readonly log?: (level: 'warn' | 'log', message: string) => void;
}

/**
 * The runners of one worker process and their lifetime: TypeScript threads start warm in the
 * sandbox process (a worker whose sandbox cannot start does not start either: scripts never run
 * with its credentials), the interpreters are looked for once, as the sandbox's user (a missing
 * python3 makes python3 an unsupported language here rather than a failure of every such job),
 * and everything stops with the module.
 */
export class ScriptRunnersHost implements OnModuleDestroy {
  private constructor(
    readonly registry: LanguageRunnerRegistry,
    private readonly typescript: TypeScriptRunner,
    readonly missing: readonly string[],
    private readonly uids?: SandboxUids,
  ) {}

  /**
   * `locker` locks the packages TypeScript scripts import that the worker does not have; `scripts`
   * reads the workspace scripts they import (with each job's token).
   */
  static async start(
    config: ScriptRunnersConfig,
    deployment: ScriptRunnersDeployment,
    locker?: LockerClient,
    scripts?: WorkspaceScriptReader,
  ): Promise<ScriptRunnersHost> {
    const log = deployment.log ?? (() => undefined);
    const resolved = resolveScriptSandbox(config.scriptSandbox.user, config.scriptSandbox.network);
    for (const warning of resolved.warnings) log('warn', warning);
    const uids = await claimUids(config, resolved.sandbox, deployment.concurrency ?? 64, log);
    // The thread sandbox runs as a uid of its own when there is a pool; process jobs each as theirs.
    const sandbox: ScriptSandbox = uids ? { ...resolved.sandbox, user: uids.sandboxUser } : resolved.sandbox;
    const workdirs = new JobWorkdirs(config.jobDir, sandbox, uids);
    const processOptions = { path: config.subprocessPath, maxResultBytes: config.maxResultBytes };
    const typescriptOptions = {
      warmThreads: config.typescriptWarmThreads,
      defaultMemoryMb: deployment.defaultMemoryMb,
      jobsPerThread: config.typescriptJobsPerThread,
      coreThreads: config.typescriptCoreThreads,
      maxThreads: config.typescriptMaxThreads,
      idleMs: 60_000,
      maxResultBytes: config.maxResultBytes,
    };
    const threads = new SandboxedThreadJobs({
      ...typescriptOptions,
      sandbox,
      path: config.subprocessPath,
      workdir: await workdirs.sandboxHome(),
      onOutput: (line) => log('log', `script sandbox: ${line}`),
    });
    const typescript = new TypeScriptRunner(
      {
        ...typescriptOptions,
        ...(locker ? { packages: new PackageInstaller(config.packages, locker) } : {}),
        ...(scripts ? { scripts } : {}),
      },
      new TypeScriptProcessRunner(processOptions, workdirs),
      threads,
    );
    await threads.ready().catch((error: Error) => {
      uids?.close();
      throw new Error(
        `${error.message} (FLOWMESH_SANDBOX_USER=${config.scriptSandbox.user}${uids ? `, uid ${sandbox.user!.uid} of FLOWMESH_SANDBOX_UIDS` : ''}: that user must be able to read Node (${process.execPath}) and this service's files, and to enter ${config.jobDir}; FLOWMESH_SANDBOX_USER=off runs scripts as the worker's own user)`,
      );
    });
    const runners: ScriptRunner[] = [
      typescript,
      new PostgresqlRunner({ maxResultBytes: config.maxResultBytes, connectTimeoutMs: 10_000 }),
    ];
    const missing: string[] = [];
    const [python, bash] = await Promise.all([
      answers(config.pythonExecutable, config.subprocessPath, sandbox),
      answers(config.bashExecutable, config.subprocessPath, sandbox),
    ]);
    if (python)
      runners.push(
        new PythonRunner(
          {
            ...processOptions,
            executable: config.pythonExecutable,
            packages: new PythonPackages({
              ...config.pythonPackages,
              python: config.pythonExecutable,
              timeoutMs: config.packages.timeoutMs,
            }),
            ...(scripts ? { scripts } : {}),
          },
          workdirs,
        ),
      );
    else missing.push(config.pythonExecutable);
    if (bash)
      runners.push(new BashRunner({ ...processOptions, executable: config.bashExecutable }, workdirs));
    else missing.push(config.bashExecutable);
    const registry = new LanguageRunnerRegistry(runners, deployment.workerTags, deployment.tagsServing);
    return new ScriptRunnersHost(registry, typescript, missing, uids);
  }

  async onModuleDestroy(): Promise<void> {
    await this.typescript.close();
    this.uids?.close();
  }
}

/**
 * The worker's uids (`FLOWMESH_SANDBOX_UIDS`), when it switches users at all; a range that cannot
 * serve it stops the worker (scripts never run sharing a uid unless asked to, with `off`).
 */
async function claimUids(
  config: ScriptRunnersConfig,
  sandbox: ScriptSandbox,
  concurrency: number,
  log: (level: 'warn' | 'log', message: string) => void,
): Promise<SandboxUids | undefined> {
  if (!sandbox.user) return undefined;
  const range = parseUidRange(config.scriptSandbox.uids, readFileSync('/etc/passwd', 'utf8'));
  if (range === 'off') {
    log(
      'warn',
      `FLOWMESH_SANDBOX_UIDS is off: every script runs as ${config.scriptSandbox.user}, so a job can read the environment (its token) of another job running at the same time, and signal it`,
    );
    return undefined;
  }
  return SandboxUids.claim({ range, jobs: concurrency, lockDir: config.scriptSandbox.uidLocks });
}

/** Whether the interpreter runs at all (`--version`), as jobs run it: the PATH they get, the sandbox's user. */
function answers(executable: string, path: string, sandbox: ScriptSandbox): Promise<boolean> {
  const launch = sandboxLaunch(sandbox, executable, ['--version']);
  return new Promise((resolve) => {
    execFile(
      launch.command,
      launch.args,
      {
        timeout: 10_000,
        env: { PATH: path },
        cwd: '/',
        ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid } : {}),
      },
      (error) => resolve(!error),
    );
  });
}
