import type { FlowModule } from '@flowmesh/contracts';
import { DEFAULT_STEP_TAG } from './child-flows.js';
import type { FlowRun } from './flow-run.js';

const TAG = /^[a-z0-9_-]+$/;

/** The tag a module names for itself: `tag` (rawscript, AI steps) or `tag_override` (script). */
export function ownTag(module: FlowModule): string | undefined {
  const value = module.value as { type: string; tag?: string; tag_override?: string };
  const tag = value.type === 'script' ? value.tag_override : value.tag;
  return tag?.trim() || undefined;
}

/**
 * Where a step runs. A run started on a custom tag keeps its steps on that tag, except those
 * naming their own when `preserve_step_tags`; otherwise a step runs on its own tag, a script
 * step on `default`, and an AI step on the flow's tag.
 */
export function stepTag(run: FlowRun, module: FlowModule): string {
  const own = ownTag(module);
  if (run.runtime.customTag) return run.runtime.preserveStepTags && own ? own : run.job.tag;
  if (module.value.type === 'aiagent' || module.value.type === 'aidecision') return own ?? run.job.tag;
  return own ?? DEFAULT_STEP_TAG;
}

export function isValidTag(tag: string): boolean {
  return TAG.test(tag);
}
