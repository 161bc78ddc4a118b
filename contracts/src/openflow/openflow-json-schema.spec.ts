import { describe, expect, it } from 'vitest';
import { flowStatusJsonSchema, openFlowJsonSchema, type JsonSchema } from './openflow-json-schema.js';

function defs(schema: JsonSchema): Record<string, JsonSchema> {
  return schema.$defs as Record<string, JsonSchema>;
}

function property(def: JsonSchema, ...path: string[]): JsonSchema {
  return path.reduce((node, key) => (node.properties as Record<string, JsonSchema>)[key], def);
}

describe('openFlowJsonSchema', () => {
  const schema = openFlowJsonSchema();
  const $defs = defs(schema);

  it('is a draft 2020-12 schema rooted at OpenFlow, one definition per named part of the spec', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$ref).toBe('#/$defs/OpenFlow');
    for (const name of [
      'OpenFlow',
      'FlowValue',
      'FlowModule',
      'FlowModuleValue',
      'RawScript',
      'PathScript',
      'PathFlow',
      'ForloopFlow',
      'WhileloopFlow',
      'BranchOne',
      'BranchAll',
      'Identity',
      'AiAgent',
      'AiDecision',
      'InputTransform',
      'StaticTransform',
      'JavascriptTransform',
      'AiTransform',
      'ProviderTransform',
      'ProviderConfig',
      'AIProviderKind',
      'MemoryTransform',
      'MemoryConfig',
      'MemoryOff',
      'MemoryWindow',
      'MemoryCompaction',
      'MemoryAuto',
      'MemoryManual',
      'MemoryMessage',
      'AgentTool',
      'ToolValue',
      'FlowModuleTool',
      'McpToolValue',
      'WebsearchToolValue',
      'Retry',
      'RetryIf',
      'StopAfterIf',
      'Suspend',
      'Debouncing',
      'FlowNote',
      'FlowGroup',
    ])
      expect($defs, name).toHaveProperty(name);
  });

  it('states the required fields of the spec', () => {
    expect($defs.OpenFlow.required).toEqual(['summary', 'value']);
    expect($defs.FlowValue.required).toEqual(['modules']);
    expect($defs.FlowModule.required).toEqual(['id', 'value']);
    expect($defs.RawScript.required).toEqual(['input_transforms', 'content', 'language', 'type']);
    expect($defs.ForloopFlow.required).toEqual(['modules', 'iterator', 'skip_failures', 'type']);
    expect($defs.BranchOne.required).toEqual(['branches', 'default', 'type']);
    expect($defs.AiAgent.required).toEqual(['input_transforms', 'type']);
    expect($defs.FlowNote.required).toEqual(['id', 'text', 'color', 'type']);
    expect($defs.FlowGroup.required).toEqual(['start_id', 'end_id']);
    expect($defs.MemoryManual.required).toEqual(['kind', 'messages']);
    expect($defs.ProviderConfig.required).toEqual(['kind', 'resource', 'model']);
  });

  it('states the enums, bounds, defaults and deprecations of the spec', () => {
    const languages = property($defs.RawScript, 'language').enum;
    expect(languages).toHaveLength(24);
    expect(languages).toContain('duckdb');
    expect(languages).not.toContain('dbt');
    expect(property($defs.Suspend, 'skin').enum).toEqual(['detailed', 'minimal']);
    expect($defs.AIProviderKind.enum).toHaveLength(14);
    const exponential = property($defs.Retry, 'exponential');
    expect(property(exponential, 'seconds')).toEqual({ type: 'integer', minimum: 1 });
    expect(property(exponential, 'random_factor')).toEqual({ type: 'integer', minimum: 0, maximum: 100 });
    expect(property($defs.FlowNote, 'locked')).toEqual({ type: 'boolean', default: false });
    expect(property($defs.AiAgent, 'omit_output_from_conversation').default).toBe(false);
    expect($defs.MemoryAuto.deprecated).toBe(true);
    expect($defs.MemoryManual.deprecated).toBe(true);
  });

  it('adds no bound the spec does not state', () => {
    const bounds = JSON.stringify(schema).match(/9007199254740991/g);
    expect(bounds).toBeNull();
  });

  it('keeps unknown fields and nullable values as the spec does', () => {
    expect($defs.FlowModule.additionalProperties).toEqual({});
    expect(property($defs.StopAfterIf, 'error_message')).toEqual({ type: ['string', 'null'] });
  });

  it('discriminates module values and tools by their type', () => {
    expect(($defs.FlowModuleValue.oneOf as unknown[]).length).toBe(10);
    expect(($defs.ToolValue.oneOf as unknown[]).length).toBe(4);
    expect(property($defs.AiAgentTool, 'tool_type')).toEqual({ type: 'string', const: 'flowmodule' });
  });
});

describe('flowStatusJsonSchema', () => {
  const $defs = defs(flowStatusJsonSchema());

  it('describes the flow status with its agent actions', () => {
    expect($defs.FlowStatus.required).toEqual(['step', 'modules', 'failure_module']);
    expect($defs.FlowStatusModule.required).toEqual(['type']);
    expect(($defs.AgentAction.oneOf as unknown[]).length).toBe(7);
    expect($defs.AgentMessageAction.required).toEqual(['type', 'content']);
    expect(property($defs.AgentToolCallAction, 'job_id').format).toBe('uuid');
  });
});
