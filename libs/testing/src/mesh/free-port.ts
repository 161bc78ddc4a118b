import net from 'node:net';

/**
 * A port nothing listens on right now, from the OS; each test's servers use their own. Another
 * process may take it before the caller binds it: a server in this process should listen on
 * port 0 and report its port instead, and a process that must be told its port in advance is
 * started through `withFreePorts`, which tries other ports when that happens. A test may also
 * use it as an address where nothing answers.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host);
  return port;
}

/** `count` different free ports: each is held until all are chosen, so none comes twice. */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = net.createServer();
      server.unref();
      servers.push(server);
      ports.push(
        await new Promise<number>((resolve, reject) => {
          server.once('error', reject);
          server.listen(0, host, () => {
            const address = server.address();
            if (typeof address === 'object' && address) resolve(address.port);
            else reject(new Error('no port'));
          });
        }),
      );
    }
    return ports;
  } finally {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
      ),
    );
  }
}

/** Whether a start failed because a port was taken: the error, or the output it carries, says so. */
export function portWasTaken(error: unknown): boolean {
  const output = (error as { output?: unknown } | undefined)?.output;
  const text = [
    error instanceof Error ? error.message : String(error),
    ...(Array.isArray(output) ? output.map(String) : []),
  ].join('\n');
  return /EADDRINUSE|address already in use|already in use/i.test(text);
}

/** How many ports a start is tried on before a taken port counts as a failure. */
const PORT_ATTEMPTS = 5;

/**
 * Starts what must be told its ports before it listens (a child process): `start` gets `count`
 * free ports, and runs again on new ones when it fails because one was taken between the choice
 * and the bind (`portWasTaken`), a few times at most. Any other failure is thrown at once.
 */
export async function withFreePorts<T>(count: number, start: (ports: number[]) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePorts(count));
    } catch (error) {
      if (attempt >= PORT_ATTEMPTS || !portWasTaken(error)) throw error;
    }
  }
}
