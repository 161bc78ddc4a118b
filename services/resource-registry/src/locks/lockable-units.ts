import { createHash } from 'node:crypto';
import { isLockableLanguage, visitModules, type LockRef, type LockUnit } from '@flowmesh/contracts';

/** What a deploy hands dependency-locker: the code to lock and the references by path to map. */
export interface LockableParts {
  readonly units: LockUnit[];
  readonly refs: LockRef[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function codeSha256(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** A script: one unit (node `''`) when its language is locked; it references nothing by path. */
export function scriptParts(language: string, content: string, lock: string | null): LockableParts {
  return {
    units: isLockableLanguage(language) ? [{ node_id: '', language, content, lock }] : [],
    refs: [],
  };
}

/**
 * A flow value: every `rawscript` step (loops, branches and inline agent tools included) whose
 * language is locked, and every step or tool that runs a script, a flow or an agent by path.
 */
export function flowParts(flowValue: unknown): LockableParts {
  return modulesParts(flowValue, false);
}

/** An `ai_agent` resource value: its `rawscript` tools and its tools by path. */
export function agentParts(agentValue: unknown): LockableParts {
  const tools = isRecord(agentValue) ? agentValue.tools : undefined;
  return modulesParts({ modules: Array.isArray(tools) ? tools : [] }, true);
}

function modulesParts(flowValue: unknown, allTools: boolean): LockableParts {
  const units: LockUnit[] = [];
  const refs: LockRef[] = [];
  visitModules(flowValue, [], ({ module, role }) => {
    const id = module.id;
    const value = module.value;
    if (typeof id !== 'string' || !isRecord(value)) return;
    const tool = allTools || role === 'tool';
    const path = typeof value.path === 'string' ? value.path : undefined;
    switch (value.type) {
      case 'rawscript':
        if (
          typeof value.language === 'string' &&
          typeof value.content === 'string' &&
          isLockableLanguage(value.language)
        )
          units.push({
            node_id: id,
            language: value.language,
            content: value.content,
            lock: typeof value.lock === 'string' ? value.lock : null,
          });
        return;
      case 'script':
        // Hub scripts live outside the workspace: nothing of ours to map.
        if (path && !path.startsWith('hub/'))
          refs.push({
            node_id: id,
            edge_kind: tool ? 'path_tool' : 'path_step',
            imported_kind: 'script',
            imported_path: path,
          });
        return;
      case 'flow':
        if (path)
          refs.push({ node_id: id, edge_kind: 'path_step', imported_kind: 'flow', imported_path: path });
        return;
      case 'aiagent':
        if (typeof value.agent === 'string' && value.agent !== '')
          refs.push({
            node_id: id,
            edge_kind: 'linked_agent',
            imported_kind: 'agent',
            imported_path: value.agent.replace(/^\$res:/, ''),
          });
        return;
    }
  });
  return { units, refs };
}

/**
 * Writes `locks` (node id to lock) into the `rawscript` modules of a flow value or an agent's
 * tools, in place, where the module's code still hashes to what was locked. Answers the node ids
 * written.
 */
export function writeModuleLocks(
  flowValue: unknown,
  locks: ReadonlyMap<string, { codeSha256: string; lock: string }>,
): Set<string> {
  const written = new Set<string>();
  visitModules(flowValue, [], ({ module }) => {
    const id = module.id;
    const value = module.value;
    if (typeof id !== 'string' || !isRecord(value) || value.type !== 'rawscript') return;
    const wanted = locks.get(id);
    if (!wanted || typeof value.content !== 'string' || codeSha256(value.content) !== wanted.codeSha256)
      return;
    value.lock = wanted.lock;
    written.add(id);
  });
  return written;
}

/**
 * `next` with the locks of `previous` on its `rawscript` modules that have none and whose id and
 * code are unchanged (a copy when there is any; `next` itself is never changed, it may be frozen):
 * an editor that saves a flow (or an agent's tools) without the locks it was sent does not leave
 * its steps without one until dependency-locker writes them again.
 */
export function withCarriedModuleLocks<T>(previous: unknown, next: T): T {
  const kept = new Map<string, { codeSha256: string; lock: string }>();
  visitModules(previous, [], ({ module }) => {
    const value = module.value;
    if (typeof module.id !== 'string' || !isRecord(value) || value.type !== 'rawscript') return;
    if (typeof value.lock === 'string' && value.lock !== '' && typeof value.content === 'string')
      kept.set(module.id, { codeSha256: codeSha256(value.content), lock: value.lock });
  });
  const missing = new Map<string, { codeSha256: string; lock: string }>();
  visitModules(next, [], ({ module }) => {
    const value = module.value;
    if (typeof module.id !== 'string' || !isRecord(value) || value.type !== 'rawscript') return;
    const lock = kept.get(module.id);
    if (lock && (value.lock === undefined || value.lock === null || value.lock === ''))
      missing.set(module.id, lock);
  });
  if (missing.size === 0) return next;
  const copy = structuredClone(next);
  writeModuleLocks(copy, missing);
  return copy;
}

/** `withCarriedModuleLocks` for the tools of two `ai_agent` values. */
export function withCarriedToolLocks(previous: unknown, next: unknown): unknown {
  const tools = (value: unknown): unknown[] =>
    isRecord(value) && Array.isArray(value.tools) ? (value.tools as unknown[]) : [];
  if (!isRecord(next)) return next;
  const carried = withCarriedModuleLocks({ modules: tools(previous) }, { modules: tools(next) });
  return carried.modules === tools(next) ? next : { ...next, tools: carried.modules };
}
