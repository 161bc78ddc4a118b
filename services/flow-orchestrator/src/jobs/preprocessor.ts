import type { RunFlowRequest, ScriptLanguage } from '@flowmesh/contracts';

/** A TypeScript module's exported `preprocessor` function (or a const holding one). */
const TYPESCRIPT_PREPROCESSOR =
  /^[ \t]*export\s+(?:(?:async\s+)?function\s*\*?\s*preprocessor\s*[<(]|(?:const|let|var)\s+preprocessor\s*[:=])/m;
/** A Python module's top-level `preprocessor` function. */
const PYTHON_PREPROCESSOR = /^(?:async[ \t]+)?def[ \t]+preprocessor[ \t]*\(/m;

/**
 * Whether a script defines Windmill's `preprocessor`: TypeScript (`export function preprocessor`,
 * `export async function preprocessor`, `export const preprocessor = ...`) and Python (a
 * top-level `def preprocessor(`). Other languages have none, as in Windmill (bash, SQL).
 */
export function scriptHasPreprocessor(language: ScriptLanguage, content: string): boolean {
  switch (language) {
    case 'bun':
    case 'bunnative':
    case 'deno':
    case 'nativets':
      return content.includes('preprocessor') && TYPESCRIPT_PREPROCESSOR.test(content);
    case 'python3':
      return content.includes('preprocessor') && PYTHON_PREPROCESSOR.test(content);
    default:
      return false;
  }
}

/** What a run starts with: its arguments, and whether its preprocessor runs first. */
export interface RunInput {
  readonly args: Record<string, unknown>;
  readonly preprocess: boolean;
}

/**
 * The arguments a run starts with, as Windmill picks them for a trigger: with
 * `apply_preprocessor` and a `trigger_event`, a runnable with a preprocessor gets `{ event }`
 * (the v2 format) and its preprocessor runs; one without runs with `args`. With
 * `apply_preprocessor` alone the preprocessor gets `args`. Without it no preprocessor runs.
 */
export function runInputOf(
  req: Pick<RunFlowRequest, 'args' | 'apply_preprocessor' | 'trigger_event'>,
  hasPreprocessor: boolean,
): RunInput {
  if (!req.apply_preprocessor || !hasPreprocessor) return { args: req.args, preprocess: false };
  if (req.trigger_event !== undefined) return { args: { event: req.trigger_event }, preprocess: true };
  return { args: req.args, preprocess: true };
}

/**
 * A preprocessor's result as the arguments of what follows it: an object as it is, nothing
 * (`null`) as no arguments, anything else as `{ value }` (the flow engine's rule, Windmill's).
 */
export function preprocessedArgs(result: unknown): Record<string, unknown> {
  if (result === null || result === undefined) return {};
  if (typeof result === 'object' && !Array.isArray(result)) return result as Record<string, unknown>;
  return { value: result };
}
