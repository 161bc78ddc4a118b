import { describe, expect, it } from 'vitest';
import { corpusData, corpusFiles } from '../../test/openflow/corpus.js';
import { isRecord } from './flow-walk.js';
import { flowStatusJsonSchema, openFlowJsonSchema, type JsonSchema } from './openflow-json-schema.js';

// Walks the generated JSON Schema and the corpus together, so that every property of every
// schema and every enum value is used by some corpus document: coverage cannot silently drop
// when the model grows. A location reads `Def.prop.sub`, `Def.list[]`, `Def.map{}`, and an
// enum value `Def.prop=value`.

const MODULE_TWINS =
  'RawScript|PathScript|PathFlow|ForloopFlow|WhileloopFlow|BranchOne|BranchAll|Identity|AiAgent|AiDecision';

// A flowmodule tool variant (`RawScriptTool`) shares its fields with the module value it extends.
function canonical(location: string): string {
  return location
    .replace(new RegExp(`^(?:${MODULE_TWINS})Tool\\.tool_type`), 'FlowModuleTool.tool_type')
    .replace(new RegExp(`^(${MODULE_TWINS})Tool\\b`), '$1');
}

function subschemas(node: JsonSchema, key: 'anyOf' | 'oneOf' | 'allOf'): JsonSchema[] {
  return Array.isArray(node[key]) ? (node[key] as JsonSchema[]) : [];
}

function properties(node: JsonSchema): [string, JsonSchema][] {
  return isRecord(node.properties) ? (Object.entries(node.properties) as [string, JsonSchema][]) : [];
}

function enumValues(node: JsonSchema): unknown[] {
  const values: unknown[] = Array.isArray(node.enum) ? node.enum : [];
  return 'const' in node ? [...values, node.const] : values;
}

class SchemaCoverage {
  private readonly defs: Record<string, JsonSchema>;

  constructor(root: JsonSchema) {
    this.defs = root.$defs as Record<string, JsonSchema>;
  }

  private deref(node: JsonSchema): [JsonSchema, string | undefined] {
    if (typeof node.$ref !== 'string') return [node, undefined];
    const name = node.$ref.split('/').pop()!;
    return [this.defs[name], name];
  }

  /** Every location the schema declares. */
  all(): Set<string> {
    const found = new Set<string>();
    const visit = (node: JsonSchema, at: string) => {
      if (typeof node.$ref === 'string') return;
      for (const value of enumValues(node)) found.add(`${at}=${String(value)}`);
      for (const [key, sub] of properties(node)) {
        found.add(`${at}.${key}`);
        visit(sub, `${at}.${key}`);
      }
      for (const sub of [
        ...subschemas(node, 'anyOf'),
        ...subschemas(node, 'oneOf'),
        ...subschemas(node, 'allOf'),
      ])
        visit(sub, at);
      if (isRecord(node.items)) visit(node.items, `${at}[]`);
      if (isRecord(node.additionalProperties)) visit(node.additionalProperties, `${at}{}`);
    };
    for (const [name, def] of Object.entries(this.defs)) visit(def, name);
    return new Set([...found].map(canonical));
  }

  /** Whether `data` could be an instance of `node`, judged by type and discriminator constants. */
  private matches(schema: JsonSchema, data: unknown): boolean {
    const [node] = this.deref(schema);
    if (subschemas(node, 'anyOf').length || subschemas(node, 'oneOf').length)
      return [...subschemas(node, 'anyOf'), ...subschemas(node, 'oneOf')].some((sub) =>
        this.matches(sub, data),
      );
    if ('const' in node) return node.const === data;
    if (Array.isArray(node.enum)) return node.enum.includes(data);
    const type = node.type;
    if (type === 'object' && !isRecord(data)) return false;
    if (type === 'array' && !Array.isArray(data)) return false;
    if (type === 'string' && typeof data !== 'string') return false;
    if ((type === 'number' || type === 'integer') && typeof data !== 'number') return false;
    if (type === 'boolean' && typeof data !== 'boolean') return false;
    if (type === 'null' && data !== null) return false;
    if (isRecord(data))
      for (const [key, sub] of properties(node)) if ('const' in sub && data[key] !== sub.const) return false;
    return true;
  }

  /** The locations `data` uses. */
  used(data: unknown, root: JsonSchema): Set<string> {
    const found = new Set<string>();
    const walk = (schema: JsonSchema, value: unknown, location: string) => {
      const [node, name] = this.deref(schema);
      const at = name ?? location;
      if (enumValues(node).includes(value)) found.add(`${at}=${String(value)}`);
      for (const sub of subschemas(node, 'allOf')) walk(sub, value, at);
      for (const sub of [...subschemas(node, 'anyOf'), ...subschemas(node, 'oneOf')])
        if (this.matches(sub, value)) walk(sub, value, at);
      if (isRecord(value)) {
        const declared = new Map(properties(node));
        for (const [key, child] of Object.entries(value)) {
          const sub = declared.get(key);
          if (sub) {
            found.add(`${at}.${key}`);
            walk(sub, child, `${at}.${key}`);
          } else if (isRecord(node.additionalProperties)) walk(node.additionalProperties, child, `${at}{}`);
        }
      }
      if (Array.isArray(value) && isRecord(node.items))
        value.forEach((item) => walk(node.items as JsonSchema, item, `${at}[]`));
    };
    walk(root, data, '(root)');
    return new Set([...found].map(canonical));
  }
}

function uncovered(root: JsonSchema, documents: unknown[]): string[] {
  const coverage = new SchemaCoverage(root);
  const used = new Set(documents.flatMap((document) => [...coverage.used(document, root)]));
  return [...coverage.all()].filter((location) => !used.has(location)).sort();
}

describe('corpus coverage of the model', () => {
  it('uses every property and enum value of the OpenFlow schema in some valid flow', () => {
    const schema = openFlowJsonSchema();
    // A bare FlowValue is checked as the value of a document.
    const flows = corpusFiles('valid').map((file) => {
      const data = corpusData(file);
      return isRecord(data) && 'modules' in data ? { summary: '', value: data } : data;
    });
    expect(uncovered(schema, flows)).toEqual([]);
  });

  it('uses every property and enum value of the FlowStatus schema in some status', () => {
    expect(uncovered(flowStatusJsonSchema(), corpusFiles('status').map(corpusData))).toEqual([]);
  });

  it('notices a field no flow uses', () => {
    const schema = openFlowJsonSchema();
    const only = { summary: 'x', value: { modules: [{ id: 'a', value: { type: 'identity' } }] } };
    expect(uncovered(schema, [only])).toContain('Identity.flow');
    expect(uncovered(schema, [only])).toContain('RawScript.language=duckdb');
    expect(uncovered(schema, [only])).not.toContain('FlowModule.id');
  });
});
