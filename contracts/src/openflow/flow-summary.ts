import type { FlowValue } from './flow-value.schema.js';
import { visitModules } from './flow-walk.js';

export interface FlowModuleCounts {
  /** Every step, nested ones and the failure and preprocessor modules included; agent tools apart. */
  readonly modules: number;
  readonly byType: ReadonlyMap<string, number>;
  readonly tools: number;
}

/** How many modules of each type a flow holds, most frequent first. */
export function countFlowModules(value: FlowValue): FlowModuleCounts {
  const counts = new Map<string, number>();
  let modules = 0;
  let tools = 0;
  visitModules(value, [], ({ module, role }) => {
    if (role === 'tool') return void tools++;
    modules++;
    const type = (module.value as { type?: unknown } | undefined)?.type;
    if (typeof type === 'string') counts.set(type, (counts.get(type) ?? 0) + 1);
  });
  const byType = new Map([...counts].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
  return { modules, byType, tools };
}
