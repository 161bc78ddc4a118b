import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmEnvironment } from '@flowmesh/bootstrap';
import { MeshError, type TypescriptRequirements } from '@flowmesh/contracts';
import type { LockerSettings } from '../dependency-locker.config.js';

/**
 * Resolves requirements into npm's lockfile (`package-lock.json`, version 3) with npm itself:
 * `npm install --package-lock-only` in a directory of its own, against npm's configured registry,
 * without running any package script and without installing anything. A package or version the
 * registry does not have is the caller's mistake (VALIDATION_FAILED, naming it); a registry that
 * cannot be reached, or a resolution past the time limit, is UNAVAILABLE.
 */
export async function resolveNpmLockfile(
  settings: LockerSettings,
  requirements: TypescriptRequirements,
): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'flowmesh-lock-'));
  try {
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({
        name: 'flowmesh-script',
        version: '0.0.0',
        private: true,
        dependencies: requirements,
      }),
    );
    const failure = await npm(settings, dir, [
      'install',
      '--package-lock-only',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      '--loglevel=error',
      ...(settings.npmRegistry ? [`--registry=${settings.npmRegistry}`] : []),
    ]);
    if (failure) throw failure;
    return JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8')) as Record<string, unknown>;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function npm(settings: LockerSettings, cwd: string, args: string[]): Promise<MeshError | undefined> {
  const env = npmEnvironment();
  return new Promise((resolve) => {
    execFile(
      settings.npm,
      args,
      { cwd, env, timeout: settings.timeoutMs, maxBuffer: 4 << 20, windowsHide: true },
      (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        if (error.killed || error.signal)
          return resolve(
            new MeshError('UNAVAILABLE', `npm did not resolve the lock within ${settings.timeoutMs} ms`),
          );
        resolve(npmError(String(stderr), error.message));
      },
    );
  });
}

/** npm's error, as the caller can act on it. */
export function npmError(stderr: string, fallback: string): MeshError {
  const notFound =
    /'((?:@[^/\s']+\/)?[^@\s']+)@([^'\s]*)' could not be found/.exec(stderr) ??
    /404\s+'((?:@[^/\s']+\/)?[^@\s']+)@([^'\s]*)' is not in/.exec(stderr);
  if (notFound)
    return new MeshError('VALIDATION_FAILED', `requirements.${notFound[1]}: not found in the npm registry`, {
      param: `requirements.${notFound[1]}`,
    });
  const noTarget = /No matching version found for ((?:@[^/\s]+\/)?[^@\s]+)@(\S+?)\.?$/m.exec(stderr);
  if (noTarget)
    return new MeshError(
      'VALIDATION_FAILED',
      `requirements.${noTarget[1]}: no version matches ${noTarget[2]}`,
      { param: `requirements.${noTarget[1]}` },
    );
  const code = /npm error code (\S+)/.exec(stderr)?.[1];
  const detail = stderr
    .split('\n')
    .filter((line) => line.startsWith('npm error') && !line.includes('complete log'))
    .slice(0, 3)
    .join(' ')
    .replace(/npm error /g, '')
    .trim();
  return new MeshError(
    'UNAVAILABLE',
    `npm could not resolve the lock (${code ?? 'failed'}): ${detail || fallback}`,
  );
}
