import { MeshChild, type ExitInfo } from '@flowmesh/cli';
import {
  ensureBuilt,
  freePort,
  removeTestStreams,
  testRunEnv,
  testSubjectPrefix,
  waitFor,
  withFreePorts,
  withTestDatabase,
} from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('../../../services/llm-gateway/dist/main.js', import.meta.url));

/** The real llm-gateway build, started as its own process the way `flowmesh start` and the image do. */
function startGateway(env: Record<string, string>): MeshChild {
  return new MeshChild(
    {
      name: 'llm-gateway',
      command: process.execPath,
      args: [ENTRY],
      // Only what the test gives: no settings leak in from the developer's shell.
      env: { PATH: process.env.PATH ?? '', ...testRunEnv(), ...env },
    },
    () => {},
  );
}

/**
 * The gateway started with `env` on a free port and ready; started again on another port if that
 * one was taken before the gateway bound it.
 */
function startReadyGateway(env: Record<string, string>): Promise<{ child: MeshChild; port: number }> {
  return withFreePorts(1, async ([port]) => {
    const child = startGateway({ ...env, LLM_GATEWAY_HTTP_PORT: String(port) });
    await waitFor(async () => !child.running || (await fetch(`http://127.0.0.1:${port}/readyz`)).ok, {
      timeoutMs: 30_000,
      description: 'llm-gateway /readyz',
    });
    if (!child.running) {
      throw new Error(`llm-gateway exited before it was ready:\n${child.recentOutput().join('\n')}`);
    }
    return { child, port };
  });
}

/** The child's exit; a bound only against a hang (the child enforces its own shutdown timeout). */
async function exitWithin(child: MeshChild, ms: number): Promise<ExitInfo & { elapsedMs: number }> {
  const started = Date.now();
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () => reject(new Error(`still running after ${ms} ms:\n${child.recentOutput().join('\n')}`)),
      ms,
    ),
  );
  const exit = await Promise.race([child.exited, timeout]);
  return { ...exit, elapsedMs: Date.now() - started };
}

function messages(child: MeshChild): string[] {
  return child
    .recentOutput(200)
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
}

describe('a service process', () => {
  const natsUrl = process.env.NATS_URL ?? '';
  const database = withTestDatabase('svcproc');
  const prefix = testSubjectPrefix('svcproc');

  beforeAll(() => ensureBuilt(), 300_000);

  afterAll(async () => {
    await Promise.allSettled([database.drop(), removeTestStreams(natsUrl, prefix)]);
  });

  it('refuses to start on a wrong setting: one line naming it, no stack trace, exit code 78', async () => {
    const child = startGateway({ NATS_URL: 'http://x', LOG_LEVEL: 'loud' });
    const exit = await exitWithin(child, 20_000);
    expect(exit.code).toBe(78);
    expect(child.recentOutput()).toEqual([
      'flowmesh llm-gateway: invalid configuration: NATS_URL must be a nats:// URL (or a comma-separated list of them) ' +
        '(got "http://x"); LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ]);
  });

  it('fails to start with one fatal log line when NATS does not answer', async () => {
    // A port nothing listens on (were one to take it meanwhile, it would not answer as NATS).
    const child = startGateway({
      NATS_URL: `nats://127.0.0.1:${await freePort()}`,
      DATABASE_URL: database.url,
      FLOWMESH_SUBJECT_PREFIX: prefix,
      PORT: '0',
    });
    const exit = await exitWithin(child, 20_000);
    expect(exit.code).toBe(1);
    const fatal = child.recentOutput().filter((line) => line.includes('"level":"fatal"'));
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain('could not start: cannot connect to NATS at nats://127.0.0.1:');
  });

  it('on SIGTERM stops gracefully and exits 0 within the shutdown timeout', async () => {
    const { child, port } = await startReadyGateway({
      NATS_URL: natsUrl,
      DATABASE_URL: database.url,
      FLOWMESH_SUBJECT_PREFIX: prefix,
      FLOWMESH_SHUTDOWN_TIMEOUT_MS: '5000',
    });
    expect(messages(child)).toContain(`ready: http://127.0.0.1:${port} (llm-gateway 0.1.0)`);

    child.signal('SIGTERM');
    // Past its 5 s the process forces its exit with code 1: code 0 is a stop within the timeout.
    const exit = await exitWithin(child, 30_000);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(messages(child).slice(-2)).toEqual(['SIGTERM received; stopping', 'stopped']);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 180_000);

  it('forces its exit, with a log line and code 1, when stopping outlasts FLOWMESH_SHUTDOWN_TIMEOUT_MS', async () => {
    const { child } = await startReadyGateway({
      NATS_URL: natsUrl,
      DATABASE_URL: database.url,
      FLOWMESH_SUBJECT_PREFIX: prefix,
      // Draining NATS and closing Postgres alone take longer than this.
      FLOWMESH_SHUTDOWN_TIMEOUT_MS: '1',
    });
    child.signal('SIGTERM');
    const exit = await exitWithin(child, 30_000);
    expect(exit.code).toBe(1);
    expect(messages(child)).toContain(
      'shutdown did not finish within 1 ms (FLOWMESH_SHUTDOWN_TIMEOUT_MS); forcing exit',
    );
  }, 180_000);
});
