import type { ItemReader } from './item-calls.js';

/** Reads step results by id for expressions: the flow's own steps, then its ancestors', then the run's latest. */
export interface ResultsReader {
  get(id: string): Promise<{ found: boolean; value: unknown }>;
  /** Every result visible from here, by step id. */
  all(): Promise<Record<string, unknown>>;
}

/** What an expression of a flow sees: `flow_input`, `results` and named variables. */
export interface ExpressionScope {
  readonly flowInput: unknown;
  readonly results: ResultsReader;
  /** `previous_result`, `result`, `error`, `resume`, `resumes`, `approvers`, `flow_env`, `params`, ... */
  readonly vars: Readonly<Record<string, unknown>>;
  /** How `variable(path)` / `resource(path)` are read, as the run; absent: they are not defined. */
  readonly items?: ItemReader;
}

export const NO_RESULTS: ResultsReader = {
  get: () => Promise.resolve({ found: false, value: undefined }),
  all: () => Promise.resolve({}),
};

export function withVars(scope: ExpressionScope, vars: Readonly<Record<string, unknown>>): ExpressionScope {
  return { ...scope, vars: { ...scope.vars, ...vars } };
}
