import type { FlowStatus, FlowStatusModule } from '@flowmesh/contracts';
import { MODULES_IN_ROWS } from '../store/job-columns.js';

/** Module statuses that no one changes in place: ended ones, and those not reached yet. */
const SETTLED_TYPES: ReadonlySet<string> = new Set(['Success', 'Failure', 'WaitingForPriorSteps']);

/** Each settled module status as JSON, encoded once however many commits carry it. */
const encodedModules = new WeakMap<FlowStatusModule, string>();

function encodedModule(module: FlowStatusModule): string {
  let json = encodedModules.get(module);
  if (json === undefined) encodedModules.set(module, (json = JSON.stringify(module)));
  return json;
}

/**
 * A flow's status as it was when a step saved it, encoded to JSON only if and when it is written
 * (under load several steps of a flow commit as one statement, which writes the latest status
 * only). Taking it costs a copy of the modules' array: a module status is replaced, not changed,
 * once it ended (and before it starts), so only the module at `step` and any other in progress
 * are encoded at once, as they are now; the others are encoded once per flow, not per step.
 * Encoding the whole status at every step made a step's cost grow with the flow's size: a flow
 * of 10 000 modules stringified ~700 kB per step.
 */
export class StatusSnapshot {
  private readonly modules: readonly FlowStatusModule[];
  /** Modules that may still change in place, as JSON taken with the snapshot. */
  private readonly live = new Map<number, string>();
  /** The status without its modules, as JSON. */
  private readonly rest: string;
  private json: string | undefined;

  constructor(status: FlowStatus) {
    const { modules, ...rest } = status;
    this.modules = modules.slice();
    for (let i = 0; i < modules.length; i++) {
      if (i === status.step || !SETTLED_TYPES.has(modules[i].type))
        this.live.set(i, JSON.stringify(modules[i]));
    }
    this.rest = JSON.stringify(rest);
  }

  /** How many modules the status has. */
  get size(): number {
    return this.modules.length;
  }

  /**
   * The status with its modules in rows of their own (`MODULES_IN_ROWS`): the status without its
   * modules, and the modules that differ from what the rows hold (`written`, from the flow's last
   * such write that landed; all of them without it): a module replaced since, or one that was or
   * is in progress (changed in place). `written` is what the rows hold once this lands.
   */
  encodeSplit(written: WrittenModules | undefined): SplitStatus {
    const indexes: number[] = [];
    const parts: string[] = [];
    for (let i = 0; i < this.modules.length; i++) {
      const live = this.live.get(i);
      if (live === undefined && written?.modules[i] === this.modules[i] && !written.live.has(i)) continue;
      indexes.push(i);
      parts.push(live ?? encodedModule(this.modules[i]));
    }
    const rest = this.rest === '{}' ? '}' : `,${this.rest.slice(1)}`;
    return {
      status: `{"modules":[],"${MODULES_IN_ROWS}":true${rest}`,
      indexes,
      modulesJson: `[${parts.join(',')}]`,
      written: { modules: this.modules, live: new Set(this.live.keys()) },
    };
  }

  /** The status as JSON (the same text as `JSON.stringify` of it, keys aside). */
  encode(): string {
    if (this.json !== undefined) return this.json;
    const modules = this.modules.map((module, i) => this.live.get(i) ?? encodedModule(module));
    const rest = this.rest === '{}' ? '' : `,${this.rest.slice(1)}`;
    this.json = `{"modules":[${modules.join(',')}]${rest || '}'}`;
    return this.json;
  }
}

/** The module statuses a flow's rows hold: as of its last write that landed. */
export interface WrittenModules {
  readonly modules: readonly FlowStatusModule[];
  /** Those in progress then, which may have changed in place since. */
  readonly live: ReadonlySet<number>;
}

export interface SplitStatus {
  /** `flow_status` as JSON, without its modules. */
  readonly status: string;
  /** The modules to write, by index, and their statuses as a JSON array in that order. */
  readonly indexes: readonly number[];
  readonly modulesJson: string;
  readonly written: WrittenModules;
}
