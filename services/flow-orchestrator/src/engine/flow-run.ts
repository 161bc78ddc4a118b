import type { ItemReader } from './expressions/item-calls.js';
import type { FlowModule, FlowStatus, FlowValue } from '@flowmesh/contracts';
import type { JobRecord, JobRuntime } from '../store/job.record.js';
import type { JobUpdate } from '../store/job.store.js';
import type { SqlStatement } from '../store/sql-batch.js';
import type { ExpressionScope, ResultsReader } from './expressions/expression-scope.js';

/** State shared by every flow of one tree driven in this process. */
export class RunTree {
  /** The latest result of each step id anywhere in the tree (a while loop's previous iteration). */
  readonly latest = new Map<string, unknown>();
  constructor(readonly rootJob: string) {}
}

export interface StopSignal {
  readonly skipIfStopped: boolean;
}

/**
 * One flow job being driven: its row, its flow value, its status (authoritative while this
 * process holds the lease; written on every step), and the results of its finished modules.
 */
export class FlowRun {
  readonly value: FlowValue;
  status: FlowStatus;
  runtime: JobRuntime;
  /** Results of this flow's modules by id, read lazily from the database after a restart. */
  readonly results = new Map<string, unknown>();
  /** Results of modules whose `previous_result` for the next step is not `results.<id>` (a routing aidecision). */
  readonly stepResults = new Map<string, unknown>();
  /** Where JSON paths of this flow's fields start: `value.` for a root flow, deeper for a body. */
  readonly fieldBase: string;
  cancelRequest: { by: string; reason: string | null } | undefined;
  /** Set by a step that ended the flow (stop_after_if, a failure without handler, ...). */
  ending: { success: boolean; result: unknown; skipped: boolean; stop?: StopSignal } | undefined;
  /** Writes held back to go with the flow's next commit (a flow's start goes with its first step). */
  pending: { statements: SqlStatement[]; fields: JobUpdate } = { statements: [], fields: {} };
  private writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly job: JobRecord,
    readonly tree: RunTree,
    readonly parent: FlowRun | undefined,
    /** Reads results the flow does not hold itself (ancestors, the tree, the database). */
    private readonly fallback: ResultsReader,
    /** A squashed loop body: runs in memory, writes nothing. */
    readonly ephemeral = false,
    /** What `variable()` / `resource()` of its expressions read, as the run. */
    private readonly items?: ItemReader,
  ) {
    this.value = job.raw_flow as unknown as FlowValue;
    this.status = job.flow_status!;
    this.runtime = job.runtime;
    this.fieldBase = job.runtime.fieldBase ?? 'value.';
    this.cancelRequest = job.canceled_by ? { by: job.canceled_by, reason: job.canceled_reason } : undefined;
  }

  get id(): string {
    return this.job.id;
  }

  get modules(): FlowModule[] {
    return this.value.modules;
  }

  /** Where module `index` sits in the flow document: `value.modules[1].value.branches[0].modules[2]`. */
  modulePath(index: number): string {
    return `${this.fieldBase}${this.runtime.modulesField ?? 'modules'}[${index}]`;
  }

  /** The flow's own input: its args (a loop iteration's include `iter`). */
  get flowInput(): Record<string, unknown> {
    return this.job.args;
  }

  /** The first write of this flow that failed: the run stops (its message is retried) rather than going on. */
  writeError: Error | undefined;

  /** Writes of this flow's row happen in order, whatever awaits them; after a failed one, none does. */
  serialize<T>(write: () => Promise<T>): Promise<T> {
    const guarded = () => (this.writeError ? Promise.reject(this.writeError) : write());
    const next = this.writes.then(guarded, guarded);
    this.writes = next.catch((error: unknown) => {
      this.writeError ??= error instanceof Error ? error : new Error(String(error));
    });
    return next;
  }

  /** Resolves once every write asked for so far has landed (or one failed). */
  settled(): Promise<void> {
    return this.writes.then(() => {
      if (this.writeError) throw this.writeError;
    });
  }

  readonly reader: ResultsReader = {
    get: async (id) => {
      if (this.results.has(id)) return { found: true, value: this.results.get(id) };
      return this.fallback.get(id);
    },
    all: async () => ({ ...(await this.fallback.all()), ...Object.fromEntries(this.results) }),
  };

  scope(vars: Readonly<Record<string, unknown>>): ExpressionScope {
    return {
      flowInput: this.flowInput,
      results: this.reader,
      vars,
      ...(this.items ? { items: this.items } : {}),
    };
  }
}
