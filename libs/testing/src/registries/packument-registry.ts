import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** name -> version -> its dependencies. */
export type RegistryContents = Record<string, Record<string, Record<string, string>>>;

export interface PackumentRegistry {
  readonly url: string;
  /** Paths asked for (`/fm-alpha`), in order: a lock-only resolve asks for packuments, never tarballs. */
  readonly requests: string[];
  publish(name: string, version: string, dependencies?: Record<string, string>): void;
  close(): Promise<void>;
}

/**
 * An npm registry that serves packuments only, as npm asks for them (`GET /<name>`, `/@scope%2fname`),
 * from what the test publishes. Enough for `npm install --package-lock-only`, which reads the
 * versions, dependencies and integrity of each package and downloads nothing.
 */
export async function startPackumentRegistry(contents: RegistryContents): Promise<PackumentRegistry> {
  const packages: RegistryContents = structuredClone(contents);
  const requests: string[] = [];
  let base = '';
  const packument = (name: string) => {
    const versions = packages[name];
    const names = Object.keys(versions);
    return {
      name,
      'dist-tags': { latest: names.at(-1) },
      versions: Object.fromEntries(
        names.map((version) => [
          version,
          {
            name,
            version,
            dependencies: versions[version],
            dist: {
              tarball: `${base}/${name}/-/${name.split('/').at(-1)}-${version}.tgz`,
              integrity: `sha512-${createHash('sha512').update(`${name}@${version}`).digest('base64')}`,
            },
          },
        ]),
      ),
    };
  };
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const name = decodeURIComponent((req.url ?? '/').slice(1));
    if (!packages[name]) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument(name)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    requests,
    publish(name, version, dependencies = {}) {
      (packages[name] ??= {})[version] = dependencies;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
