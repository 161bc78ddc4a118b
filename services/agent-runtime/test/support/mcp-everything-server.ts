import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { testRunEnv, withFreePorts } from '@flowmesh/testing';

export interface EverythingServer {
  /** The endpoint: `/mcp` (streamable HTTP) or `/sse`. */
  readonly url: string;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/**
 * `@modelcontextprotocol/server-everything` (the protocol's reference server: echo, get-sum,
 * get-tiny-image, resources...) in its own process on a free loopback port, serving streamable
 * HTTP at `/mcp` or the older SSE transport at `/sse`; it is ready when it says it listens.
 */
export async function startEverythingServer(
  transport: 'streamableHttp' | 'sse' = 'streamableHttp',
): Promise<EverythingServer> {
  const require = createRequire(import.meta.url);
  const entry = join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist',
    'index.js',
  );
  return withFreePorts(
    1,
    ([port]) =>
      new Promise<EverythingServer>((resolve, reject) => {
        const child = spawn(process.execPath, [entry, transport], {
          env: { PATH: process.env.PATH, ...testRunEnv(), PORT: String(port) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const output: string[] = [];
        const timer = setTimeout(
          () => fail(new Error(`did not listen within ${START_TIMEOUT_MS} ms`)),
          START_TIMEOUT_MS,
        );
        const fail = (error: Error) => {
          clearTimeout(timer);
          child.kill('SIGKILL');
          reject(
            Object.assign(new Error(`server-everything: ${error.message}\n${output.join('')}`), { output }),
          );
        };
        const closed = new Promise<void>((done) => child.once('close', () => done()));
        child.once('error', fail);
        child.once('exit', (code) => fail(new Error(`exited with code ${String(code)}`)));
        for (const stream of [child.stdout, child.stderr])
          stream.setEncoding('utf8').on('data', (chunk: string) => {
            output.push(chunk);
            if (/(listening|running) on port/i.test(chunk)) {
              clearTimeout(timer);
              child.removeAllListeners('exit');
              resolve({
                url: `http://127.0.0.1:${port}/${transport === 'sse' ? 'sse' : 'mcp'}`,
                close: async () => {
                  child.kill('SIGTERM');
                  await closed;
                },
              });
            }
          });
      }),
  );
}
