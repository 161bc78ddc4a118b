import { z } from 'zod';
import { MeshError } from '../errors.js';

/**
 * Names of the things that own items, and item paths. A path names its owner: `u/<user>/<name>`
 * is owned by that user, `f/<folder>/<name>` follows the folder's roles. Nothing else is a path.
 */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const NAME_MAX = 64;
const PATH_MAX = 255;
const PATH_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

export type NameKind = 'user' | 'group' | 'folder' | 'workspace';

/** `undefined` when `value` is a valid name, else the reason (completes `"<value>" ...`). */
export function nameProblem(kind: NameKind, value: string): string | undefined {
  if (value.length === 0) return `a ${kind} name must not be empty`;
  if (value.length > NAME_MAX) return `a ${kind} name must be at most ${NAME_MAX} characters`;
  const pattern = kind === 'workspace' ? /^[a-z0-9][a-z0-9_-]*$/ : NAME;
  if (!pattern.test(value)) {
    return kind === 'workspace'
      ? `a workspace id must be lowercase letters, digits, '-' or '_', starting with a letter or digit`
      : `a ${kind} name must be letters, digits, '_', '-' or '.', starting with a letter, digit or '_'`;
  }
  return undefined;
}

function nameSchema(kind: NameKind) {
  return z.string().superRefine((value, ctx) => {
    const problem = nameProblem(kind, value);
    if (problem) ctx.addIssue({ code: 'custom', message: `"${value}" is not valid: ${problem}` });
  });
}

export const WorkspaceIdSchema = nameSchema('workspace');
export const UsernameSchema = nameSchema('user');
export const GroupNameSchema = nameSchema('group');
export const FolderNameSchema = nameSchema('folder');

export interface ItemPath {
  readonly kind: 'user' | 'folder';
  /** The user name (`u/`) or the folder name (`f/`). */
  readonly owner: string;
  /** What follows the owner: `x` or `sub/x`. */
  readonly name: string;
}

/** `undefined` when `path` is a valid item path, else the whole sentence saying why not. */
export function itemPathProblem(path: string): string | undefined {
  // Quoted only when there is something to say: every item read checks its path (hot path).
  const shown = () => JSON.stringify(path.length > 80 ? `${path.slice(0, 80)}…` : path);
  if (path.length > PATH_MAX) return `path ${shown()} is longer than ${PATH_MAX} characters`;
  const [prefix, owner, ...rest] = path.split('/');
  if ((prefix !== 'u' && prefix !== 'f') || owner === undefined) {
    return `path ${shown()} must start with u/<user>/ or f/<folder>/`;
  }
  const ownerProblem = nameProblem(prefix === 'u' ? 'user' : 'folder', owner);
  if (ownerProblem) return `path ${shown()}: "${owner}" is not valid: ${ownerProblem}`;
  if (rest.length === 0 || rest.join('/') === '') {
    return `path ${shown()} must name an item after ${prefix}/${owner}/`;
  }
  const bad = rest.find((segment) => !PATH_SEGMENT.test(segment));
  if (bad !== undefined) {
    return `path ${shown()}: segment "${bad}" must be letters, digits, '_', '-' or '.', starting with a letter, digit or '_'`;
  }
  return undefined;
}

/** Splits an item path; a malformed one is a VALIDATION_FAILED error saying what is wrong. */
export function parseItemPath(path: string): ItemPath {
  const problem = itemPathProblem(path);
  if (problem) throw new MeshError('VALIDATION_FAILED', problem, { path });
  const [prefix, owner, ...rest] = path.split('/') as [string, string, ...string[]];
  return { kind: prefix === 'u' ? 'user' : 'folder', owner, name: rest.join('/') };
}

export function isItemPath(path: string): boolean {
  return itemPathProblem(path) === undefined;
}

/** An item path in a payload: `u/<user>/<name>` or `f/<folder>/<name>`. */
export const ItemPathSchema = z.string().superRefine((value, ctx) => {
  const problem = itemPathProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** Who a folder role or a job's `on_behalf_of` names: `u/<user>` or `g/<group>`. */
export const PrincipalSchema = z.string().superRefine((value, ctx) => {
  const problem = principalProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export function principalProblem(value: string): string | undefined {
  const match = /^([ug])\/(.*)$/.exec(value);
  if (!match) return `"${value}" must be u/<user> or g/<group>`;
  const [, kind, name] = match as unknown as [string, 'u' | 'g', string];
  const problem = nameProblem(kind === 'u' ? 'user' : 'group', name);
  return problem ? `"${value}": ${problem}` : undefined;
}
