/** How a chain of saved flows is named in an error: the first repeat marked, long middles cut. */
export function describeChain(chain: readonly string[]): string {
  const shown = chain.length <= 12 ? chain : [...chain.slice(0, 6), '...', ...chain.slice(-5)];
  return shown.join(' -> ');
}

/** The error of a flow nested past `FLOWMESH_MAX_FLOW_DEPTH`, naming the chain (a cycle, usually). */
export function flowTooDeep(chain: readonly string[], limit: number): { name: string; message: string } {
  const first = chain.findIndex((path, index) => chain.indexOf(path) !== index);
  const cycle =
    first >= 0
      ? ` (${chain[first]} runs itself again: ${describeChain(chain.slice(chain.indexOf(chain[first]), first + 1))})`
      : '';
  return {
    name: 'FlowDepthExceeded',
    message: `flows nest ${chain.length} deep, past the limit of ${limit} (FLOWMESH_MAX_FLOW_DEPTH)${cycle}: ${describeChain(chain)}`,
  };
}
