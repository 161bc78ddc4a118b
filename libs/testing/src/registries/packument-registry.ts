import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/** name -> version -> its dependencies. */
export type RegistryContents = Record<string, Record<string, Record<string, string>>>;

/** `name@version` -> the files of that version besides `package.json` (`{'index.js': '...'}`). */
export type RegistryFiles = Record<string, Record<string, string>>;

export interface PackumentRegistry {
  readonly url: string;
  /** Paths asked for (`/fm-alpha`), in order: a lock-only resolve asks for packuments, never tarballs. */
  readonly requests: string[];
  publish(
    name: string,
    version: string,
    dependencies?: Record<string, string>,
    files?: Record<string, string>,
  ): void;
  /** Where the tarball of a version is served, as its packument names it (`dist.tarball`). */
  tarballUrl(name: string, version: string): string;
  /** The `sha512-...` integrity of a version's tarball, as its packument names it. */
  integrity(name: string, version: string): string;
  close(): Promise<void>;
}

/**
 * An npm registry serving packuments (`GET /<name>`, `/@scope%2fname`) and tarballs
 * (`GET /<name>/-/<name>-<version>.tgz`) from what the test publishes: enough for
 * `npm install --package-lock-only` (packuments only) and for `npm ci` of the lock it wrote
 * (tarballs, checked against their integrity). A tarball holds `package/package.json` (name,
 * version, dependencies, `main` when there is an `index.js`) and the files published with it.
 */
export async function startPackumentRegistry(
  contents: RegistryContents,
  files: RegistryFiles = {},
): Promise<PackumentRegistry> {
  const packages: RegistryContents = structuredClone(contents);
  const published: RegistryFiles = structuredClone(files);
  const tarballs = new Map<string, Buffer>();
  const requests: string[] = [];
  let base = '';
  const fileName = (name: string, version: string) => `${name.split('/').at(-1)}-${version}.tgz`;
  const tarballUrl = (name: string, version: string) => `${base}/${name}/-/${fileName(name, version)}`;
  const tarball = (name: string, version: string): Buffer => {
    const key = `${name}@${version}`;
    let made = tarballs.get(key);
    if (!made) {
      const own = published[key] ?? {};
      const manifest = {
        name,
        version,
        dependencies: packages[name][version],
        ...('index.js' in own ? { main: 'index.js' } : {}),
      };
      made = npmTarball({ 'package.json': JSON.stringify(manifest, null, 2), ...own });
      tarballs.set(key, made);
    }
    return made;
  };
  const integrity = (name: string, version: string) =>
    `sha512-${createHash('sha512').update(tarball(name, version)).digest('base64')}`;
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
            dist: { tarball: tarballUrl(name, version), integrity: integrity(name, version) },
          },
        ]),
      ),
    };
  };
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const path = decodeURIComponent((req.url ?? '/').slice(1));
    const asked = /^(.+)\/-\/[^/]+-(\d[^/]*)\.tgz$/.exec(path);
    if (asked && packages[asked[1]]?.[asked[2]] && path.endsWith(`/-/${fileName(asked[1], asked[2])}`)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarball(asked[1], asked[2]));
      return;
    }
    if (!packages[path]) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"Not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument(path)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/`,
    requests,
    publish(name, version, dependencies = {}, own = {}) {
      (packages[name] ??= {})[version] = dependencies;
      published[`${name}@${version}`] = own;
      tarballs.delete(`${name}@${version}`);
    },
    tarballUrl,
    integrity,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A gzipped ustar archive of these files under `package/`, as npm packs them (fixed mtime). */
function npmTarball(files: Record<string, string>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    const header = Buffer.alloc(512);
    const field = (value: string, offset: number, length: number) =>
      header.write(value, offset, length, 'ascii');
    field(`package/${name}`, 0, 100);
    field('0000644\0', 100, 8);
    field('0000000\0', 108, 8);
    field('0000000\0', 116, 8);
    field(`${body.length.toString(8).padStart(11, '0')}\0`, 124, 12);
    field('00000000000\0', 136, 12);
    field('        ', 148, 8);
    field('0', 156, 1);
    field('ustar\0', 257, 6);
    field('00', 263, 2);
    let sum = 0;
    for (const byte of header) sum += byte;
    field(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
