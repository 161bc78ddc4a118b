import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeshError, pythonLockText } from '@flowmesh/contracts';
import type { PythonResolverSettings } from '../dependency-locker.config.js';

/** Resolves python requirements (distribution to specifier, `latest` for any) into a lock text. */
export interface PythonLockResolver {
  readonly name: string;
  resolve(requirements: Readonly<Record<string, string>>): Promise<string>;
}

type Run = (file: string, args: string[], options: { timeoutMs: number; cwd?: string }) => Promise<string>;

const run: Run = (file, args, options) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        timeout: options.timeoutMs,
        maxBuffer: 16 << 20,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        // pip's own configuration (a user's pip.conf, PIP_* variables) must not decide the index.
        env: {
          PATH: process.env.PATH ?? '',
          HOME: tmpdir(),
          PIP_CONFIG_FILE: '/dev/null',
          PIP_DISABLE_PIP_VERSION_CHECK: '1',
        },
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(String(stdout));
        const detail = String(stderr)
          .split('\n')
          .filter((l) => l.startsWith('ERROR'))
          .slice(0, 3)
          .join(' ');
        reject(
          new MeshError(
            'VALIDATION_FAILED',
            `${file} could not resolve the requirements: ${detail || error.message}`,
          ),
        );
      },
    );
  });

function requirementLines(requirements: Readonly<Record<string, string>>): string {
  return Object.entries(requirements)
    .map(([name, spec]) => (spec === 'latest' ? name : `${name}${spec}`))
    .join('\n');
}

/** `pip install --dry-run --ignore-installed --report`: what pip would install, nothing installed. */
export class PipReportResolver implements PythonLockResolver {
  readonly name = 'pip';
  constructor(
    private readonly settings: PythonResolverSettings,
    private readonly timeoutMs: number,
    private readonly exec: Run = run,
  ) {}

  async resolve(requirements: Readonly<Record<string, string>>): Promise<string> {
    if (Object.keys(requirements).length === 0) return pythonLockText({ pins: {} });
    const dir = await mkdtemp(join(tmpdir(), 'flowmesh-pylock-'));
    try {
      await writeFile(join(dir, 'requirements.txt'), requirementLines(requirements));
      const out = await this.exec(
        this.settings.interpreter,
        [
          '-m',
          'pip',
          'install',
          '--dry-run',
          '--ignore-installed',
          '--quiet',
          '--no-input',
          '--report',
          '-',
          '-r',
          'requirements.txt',
          ...(this.settings.indexUrl ? ['--index-url', this.settings.indexUrl] : []),
        ],
        { timeoutMs: this.timeoutMs, cwd: dir },
      );
      const report = JSON.parse(out) as {
        install?: Array<{ metadata?: { name?: string; version?: string } }>;
        environment?: { python_version?: string };
      };
      const pins: Record<string, string> = {};
      for (const item of report.install ?? [])
        if (item.metadata?.name && item.metadata.version)
          pins[item.metadata.name.toLowerCase()] = item.metadata.version;
      const python = report.environment?.python_version?.split('.').slice(0, 2).join('.');
      return pythonLockText({ ...(python ? { python } : {}), pins });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** `uv pip compile`: uv's resolution, `name==version` lines. */
export class UvCompileResolver implements PythonLockResolver {
  readonly name = 'uv';
  constructor(
    private readonly settings: PythonResolverSettings,
    private readonly timeoutMs: number,
    private readonly exec: Run = run,
  ) {}

  async resolve(requirements: Readonly<Record<string, string>>): Promise<string> {
    if (Object.keys(requirements).length === 0) return pythonLockText({ pins: {} });
    const dir = await mkdtemp(join(tmpdir(), 'flowmesh-pylock-'));
    try {
      await writeFile(join(dir, 'requirements.in'), requirementLines(requirements));
      const out = await this.exec(
        'uv',
        [
          'pip',
          'compile',
          'requirements.in',
          '--quiet',
          '--no-header',
          '--no-annotate',
          ...(this.settings.indexUrl ? ['--index-url', this.settings.indexUrl] : []),
        ],
        { timeoutMs: this.timeoutMs, cwd: dir },
      );
      const pins: Record<string, string> = {};
      for (const line of out.split('\n')) {
        const pin = /^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)/.exec(line.trim());
        if (pin) pins[pin[1].toLowerCase()] = pin[2]!;
      }
      return pythonLockText({ pins });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** `uv` when asked for or (`auto`) on PATH, else pip. */
export async function pythonLockResolver(
  settings: PythonResolverSettings,
  timeoutMs: number,
): Promise<PythonLockResolver> {
  if (settings.resolver === 'pip') return new PipReportResolver(settings, timeoutMs);
  if (settings.resolver === 'uv') return new UvCompileResolver(settings, timeoutMs);
  const uv = await run('uv', ['--version'], { timeoutMs: 5_000 }).then(
    () => true,
    () => false,
  );
  return uv ? new UvCompileResolver(settings, timeoutMs) : new PipReportResolver(settings, timeoutMs);
}
