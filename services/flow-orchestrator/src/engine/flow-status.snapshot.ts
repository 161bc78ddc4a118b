import type { FlowStatus, FlowStatusModule } from '@flowmesh/contracts';

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

  /** The status as JSON (the same text as `JSON.stringify` of it, keys aside). */
  encode(): string {
    if (this.json !== undefined) return this.json;
    const modules = this.modules.map((module, i) => this.live.get(i) ?? encodedModule(module));
    const rest = this.rest === '{}' ? '' : `,${this.rest.slice(1)}`;
    this.json = `{"modules":[${modules.join(',')}]${rest || '}'}`;
    return this.json;
  }
}
