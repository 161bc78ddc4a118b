import { formatJsonPath } from '../errors.js';
import { isRecord } from './flow-walk.js';
import type { FlowIssue } from './rules/flow-rule.js';

/** The reading position of every path in `data`: keys in insertion order, which JSON and YAML readers keep. */
function readingPositions(data: unknown): Map<string, number> {
  const positions = new Map<string, number>();
  const walk = (node: unknown, path: PropertyKey[]) => {
    positions.set(formatJsonPath(path), positions.size);
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, [...path, index]));
    else if (isRecord(node)) for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
  };
  walk(data, []);
  return positions;
}

/**
 * Puts issues in the order a person reads the flow; an issue about a missing field sits with
 * its parent. Issues at one position keep their order.
 */
export function inReadingOrder(issues: readonly FlowIssue[], data: unknown): FlowIssue[] {
  const positions = readingPositions(data);
  const positionOf = (path: readonly PropertyKey[]) => {
    for (let length = path.length; length > 0; length--) {
      const position = positions.get(formatJsonPath(path.slice(0, length)));
      if (position !== undefined) return position;
    }
    return 0;
  };
  return issues
    .map((issue, index) => ({ issue, index, position: positionOf(issue.path) }))
    .sort((a, b) => a.position - b.position || a.index - b.index)
    .map(({ issue }) => issue);
}
