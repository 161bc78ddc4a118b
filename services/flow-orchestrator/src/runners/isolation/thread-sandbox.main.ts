import type * as SiblingsHook from '../../typescript-siblings.hook.js';
import type { ThreadJobsOptions } from '../typescript/thread-jobs.js';
import type { SandboxInbound, SandboxOutbound } from './thread-sandbox.protocol.js';

/**
 * The thread sandbox: a process started by a worker, as the sandbox's user and with an
 * environment of its own (no database URL, no NATS credentials, no token), that runs the
 * worker's TypeScript jobs on its warm threads. Its options come as the first argument; jobs
 * come and go over the IPC channel. It ends when the worker does (the channel closes).
 */

// Run from its TypeScript sources (tests): siblings are imported as `.js`, which only a build makes.
if (import.meta.url.endsWith('.ts')) {
  const hook = '../../typescript-siblings.hook.ts';
  ((await import(hook)) as typeof SiblingsHook).resolveTypeScriptSiblings();
}
// Imported after the hook (a static import would be resolved before it is in place).
const { ThreadJobs } = await import('../typescript/thread-jobs.js');

// Files the jobs create stay shareable with a flow's other steps, which run as other uids (see
// `process/subprocess.ts`).
process.umask(0);
const jobs = new ThreadJobs(JSON.parse(process.argv[2] ?? '{}') as ThreadJobsOptions);
const running = new Map<number, AbortController>();
const send = (message: SandboxOutbound): void => {
  if (process.connected) process.send!(message);
};

process.on('message', (message: SandboxInbound) => {
  switch (message.type) {
    case 'run': {
      const { id, request } = message;
      const controller = new AbortController();
      running.set(id, controller);
      jobs
        .run(request, (line) => send({ type: 'log', id, line }), {
          signal: controller.signal,
          onStart: () => send({ type: 'start', id }),
          onPreprocessed: (args) => send({ type: 'preprocessed', id, args }),
        })
        .then(
          (json) => send({ type: 'done', id, json, stats: jobs.stats() }),
          (error: Error & { jobStack?: string }) =>
            send({
              type: 'failed',
              id,
              error: {
                name: error.name,
                message: error.message,
                ...(error.jobStack !== undefined ? { stack: error.jobStack } : {}),
              },
              stats: jobs.stats(),
            }),
        )
        .finally(() => running.delete(id));
      return;
    }
    case 'cancel':
      running.get(message.id)?.abort();
      return;
    case 'close':
      void jobs.close().finally(() => process.exit(0));
      return;
  }
});
// The worker is gone (exited or killed): nothing is left to run jobs for.
process.on('disconnect', () => process.exit(0));

jobs.start();
send({ type: 'ready' });
