import { stringify } from 'yaml';
import type { FlowValue, OpenFlow } from './flow-value.schema.js';
import type { SourceFormat } from './source-text.js';

/** Writes a flow (document or bare value) as JSON or YAML; parsing the text gives the same flow back. */
export function serializeOpenFlow(flow: OpenFlow | FlowValue, format: SourceFormat): string {
  if (format === 'json') return `${JSON.stringify(flow, null, 2)}\n`;
  // No anchors: a value written twice stays written twice, as a reader of the file expects.
  return stringify(flow, { aliasDuplicateObjects: false, lineWidth: 0 });
}
