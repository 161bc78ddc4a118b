import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResumeOutcome } from '@flowmesh/contracts';
import { parse } from 'yaml';
import { isPlainObject } from './value-match.js';

/** Who acts: the workspace admin, or one of the two members every conformance mesh has. */
export type ActorName = 'admin' | 'alice' | 'bob';

export interface ScriptFixture {
  readonly path: string;
  readonly language: string;
  readonly content?: string;
  /** Several versions, oldest first; `{{hash:<path>:<index>}}` names one. */
  readonly versions?: readonly string[];
}

export interface RegistryFixtures {
  readonly resource_types?: readonly { name: string; schema: Record<string, unknown> }[];
  readonly variables?: readonly { path: string; value: string; is_secret?: boolean; as?: ActorName }[];
  readonly resources?: readonly { path: string; resource_type: string; value: unknown; as?: ActorName }[];
  readonly scripts?: readonly ScriptFixture[];
  readonly flows?: readonly { path: string; summary?: string; value: Record<string, unknown> }[];
}

/** One action on a suspended flow, in order; the runner first waits until the flow is suspended. */
export interface ApprovalStep {
  readonly resume_id?: number;
  /** Whose token makes the request (default admin). */
  readonly as?: ActorName;
  readonly approver?: string;
  readonly payload?: unknown;
  readonly approve?: boolean;
  readonly authenticated?: boolean;
  readonly expect_outcome?: ResumeOutcome;
  /** The request must be refused, its message matching this. */
  readonly expect_error?: unknown;
  /** A check, not a request: the flow job has this status now. */
  readonly expect_status?: string;
  /** With expect_status: the flow_status now (objects matched partially). */
  readonly expect_flow_status?: unknown;
}

export interface RunsSpec {
  readonly parallel?: boolean;
  /** Submit every run in order without waiting for the previous one to end (debouncing). */
  readonly sequential_submit?: boolean;
  readonly args: readonly Record<string, unknown>[];
}

export interface CaseExpectation {
  readonly result?: unknown;
  /** The flow failed; its `result.error` holds at least these keys, each matching. */
  readonly error?: Record<string, unknown>;
  /** The flow failed and its whole result is this (a failure module's result). */
  readonly failed_result?: unknown;
  /** One result per run (`runs`), in order. */
  readonly results?: readonly unknown[];
  /** Lines in a file of the case's directory (a side effect count). */
  readonly side_effects?: Record<string, number>;
  readonly file_lines?: Record<string, readonly string[]>;
  /** The same lines in any order (independent runs the spec lets run at once). */
  readonly file_lines_any_order?: Record<string, readonly string[]>;
  /** From a trace file of `+`/`-` lines: the most overlapping runs seen. */
  readonly max_concurrency?: Record<string, { equals?: number; min?: number }>;
  /** Consecutive timestamp lines (ms) of a file are at least these apart. */
  readonly min_gaps_ms?: Record<string, readonly number[]>;
  readonly min_duration_ms?: number;
  readonly max_duration_ms?: number;
  /** Every step job of the run took at most this from its start to its end. */
  readonly max_step_duration_ms?: number;
  readonly flow_status?: unknown;
  readonly skipped?: boolean;
  /** Fields of the flow job (matched partially). */
  readonly job?: Record<string, unknown>;
  /** Fields of the job that ran a step, by step id (matched partially). */
  readonly step_jobs?: Record<string, Record<string, unknown>>;
  /** These steps' jobs lose their args and result after delete_after_secs. */
  readonly step_deleted?: readonly string[];
  readonly flow_deleted?: boolean;
  /** These FlowValue keys come back unchanged in the job's raw_flow. */
  readonly raw_flow_keeps?: readonly string[];
  /** What a synchronous caller of a saved flow gets back through early_return, and how soon. */
  readonly early_result?: unknown;
  readonly early_within_ms?: number;
}

export interface FlowCase {
  readonly file: string;
  readonly name: string;
  readonly summary: string;
  readonly covers: readonly string[];
  readonly registry?: RegistryFixtures;
  /** An OpenFlow document run inline (preview). */
  readonly flow?: Record<string, unknown>;
  /** Or a saved flow (from `registry.flows`) run by path. */
  readonly flow_path?: string;
  readonly args: Record<string, unknown>;
  readonly runs?: readonly { args: Record<string, unknown> }[] | RunsSpec;
  readonly approvals?: readonly ApprovalStep[];
  readonly run_as?: ActorName;
  readonly run_tag?: string;
  readonly apply_preprocessor?: boolean;
  readonly early_return_via_http?: boolean;
  /**
   * Why the case's expectation is about wall-clock timing (an early answer within so long, a
   * burst inside a debounce window, iterations overlapping): it runs after the all-at-once burst,
   * on its own, so what it measures is the engine and not 137 flows queued on 2 cores.
   */
  readonly timing?: string;
  readonly expect: CaseExpectation;
}

export const FLOWS_DIR = new URL('../flows/', import.meta.url);

/** Every case file, in file order; a file that is not a well-formed case throws naming itself. */
export function loadCases(dir: URL = FLOWS_DIR): FlowCase[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const data: unknown = parse(readFileSync(join(dir.pathname, file), 'utf8'));
      if (!isPlainObject(data)) throw new Error(`${file}: not a YAML mapping`);
      if (!isPlainObject(data.expect)) throw new Error(`${file}: no expect`);
      if (data.flow === undefined && data.flow_path === undefined) throw new Error(`${file}: no flow`);
      return {
        ...(data as Omit<FlowCase, 'file' | 'name'>),
        args: (data.args as Record<string, unknown> | undefined) ?? {},
        covers: (data.covers as string[] | undefined) ?? [],
        file,
        name: file.replace(/\.yaml$/, ''),
      };
    });
}

/** The runs a case makes: one with its args unless it lists several. */
export function runsOf(flowCase: FlowCase): {
  mode: 'sequential' | 'parallel' | 'submit';
  args: Record<string, unknown>[];
} {
  const runs = flowCase.runs;
  if (runs === undefined) return { mode: 'sequential', args: [flowCase.args] };
  if (Array.isArray(runs))
    return { mode: 'sequential', args: runs.map((run: { args: Record<string, unknown> }) => run.args) };
  const spec = runs as RunsSpec;
  return {
    mode: spec.parallel ? 'parallel' : spec.sequential_submit ? 'submit' : 'sequential',
    args: [...spec.args],
  };
}

/**
 * Replaces placeholders in every string of a value: `{{dir}}` the case's own directory,
 * `{{registry_url}}`, `{{hash:<path>:<index>}}` a script version's hash; a string that is a
 * whole placeholder of an object (`{{pg_resource}}`) becomes that object.
 */
export function fillTemplates(value: unknown, vars: Readonly<Record<string, unknown>>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{([^}]+)\}\}$/.exec(value);
    if (whole && whole[1] !== undefined && typeof vars[whole[1]] === 'object') return vars[whole[1]];
    return value.replace(/\{\{([^}]+)\}\}/g, (match, name: string) => {
      const filled = vars[name];
      if (filled === undefined) throw new Error(`unknown placeholder ${match}`);
      return typeof filled === 'string' ? filled : JSON.stringify(filled);
    });
  }
  if (Array.isArray(value)) return value.map((item) => fillTemplates(item, vars));
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fillTemplates(item, vars)]));
  return value;
}
