import { z } from 'zod';
import { TypescriptLockSchema, type TypescriptLock } from './locker.contract.js';

/**
 * The text of a lock as items hold it (`script.lock`, a step's or a tool's `value.lock`).
 *
 * - npm (bun, deno, nativets): `{"flowmesh_lock":"npm",...}`, a `TypescriptLock` (requirements
 *   and npm's `package-lock.json`), which a worker installs with `npm ci` without asking anyone.
 * - python3: Windmill's format, `# py: <version>` then one `name==version` a line.
 */
const NPM_MARK = 'npm';

/**
 * `scripts`: the workspace scripts the unit imports (followed, `f/lib/a`) and the version (script
 * hash) each was locked against, which a worker runs rather than whatever is current.
 */
export function npmLockText(lock: TypescriptLock, scripts: LockedScripts = {}): string {
  return JSON.stringify({
    flowmesh_lock: NPM_MARK,
    ...lock,
    ...(Object.keys(scripts).length > 0 ? { scripts } : {}),
  });
}

/** Workspace script path to the version (script hash) a lock was made against. */
export type LockedScripts = Readonly<Record<string, string>>;

const LockedScriptsSchema = z.record(z.string().max(255), z.string().max(128));

/** The workspace scripts a lock text (npm's or python's) names with their versions; `{}` when it names none. */
export function lockedScriptsOf(text: string | null | undefined): LockedScripts {
  if (!text) return {};
  if (!text.startsWith('{"flowmesh_lock":"npm"')) return parsePythonLockText(text)?.scripts ?? {};
  try {
    const parsed = LockedScriptsSchema.safeParse((JSON.parse(text) as { scripts?: unknown }).scripts ?? {});
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** The npm lock a lock text holds; undefined for any other text (a Windmill lock, a python one). */
export function parseNpmLockText(text: string | null | undefined): TypescriptLock | undefined {
  if (!text || !text.startsWith('{"flowmesh_lock":"npm"')) return undefined;
  try {
    const parsed = TypescriptLockSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface PythonLock {
  /** `3.11`; absent when the resolver did not say. */
  readonly python?: string;
  /** Distribution name (lower case) to exact version. */
  readonly pins: Readonly<Record<string, string>>;
  /** The workspace scripts it imports and their versions, as an npm lock's `scripts`. */
  readonly scripts?: LockedScripts;
}

/** `# script: <path> <hash>` lines: comments to Windmill and pip, the imported scripts' versions to workers. */
const SCRIPT_LINE = /^# script: (\S+) (\S+)$/;

export function pythonLockText(lock: PythonLock): string {
  const lines = Object.entries(lock.pins)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, version]) => `${name}==${version}`);
  const scripts = Object.entries(lock.scripts ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([path, version]) => `# script: ${path} ${version}`);
  return [...(lock.python ? [`# py: ${lock.python}`] : []), ...scripts, ...lines].join('\n');
}

export function parsePythonLockText(text: string | null | undefined): PythonLock | undefined {
  if (!text) return undefined;
  let python: string | undefined;
  const pins: Record<string, string> = {};
  const scripts: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '') continue;
    const py = /^# py: (\S+)$/.exec(line);
    if (py) {
      python = py[1];
      continue;
    }
    const script = SCRIPT_LINE.exec(line);
    if (script) {
      scripts[script[1]] = script[2]!;
      continue;
    }
    const pin = /^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)$/.exec(line);
    if (!pin) return undefined;
    pins[pin[1].toLowerCase()] = pin[2]!;
  }
  return { ...(python ? { python } : {}), pins, ...(Object.keys(scripts).length > 0 ? { scripts } : {}) };
}
