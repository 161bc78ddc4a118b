export * from './flow-module.schema.js';
export * from './input-transform.schema.js';
export * from './provider.schema.js';
export * from './memory.schema.js';
export * from './retry.schema.js';
export * from './module-options.schema.js';
export * from './script-modules.schema.js';
export * from './ai-agent-inputs.schema.js';
export * from './ai-decision.schema.js';
export * from './agent-tool-values.schema.js';
export * from './flow-annotations.schema.js';
export * from './json-object.schema.js';
export * from './flow-value.schema.js';
export * from './flow-status.schema.js';
export { openFlowRegistry, type OpenFlowMeta } from './openflow.registry.js';
export { linkedAgentPaths, visitModules, type ModuleRole, type VisitedModule } from './flow-walk.js';
export { countFlowModules, type FlowModuleCounts } from './flow-summary.js';
export { humanIssueMessage } from './issue-message.js';
export {
  parseOpenFlow,
  type OpenFlowInputKind,
  type ParseOpenFlowOptions,
  type ParseOpenFlowResult,
} from './parse-openflow.js';
export { serializeOpenFlow } from './serialize-openflow.js';
export { readSourceText, type SourceFormat, type SourceTextResult } from './source-text.js';
export { openFlowJsonSchema, flowStatusJsonSchema, type JsonSchema } from './openflow-json-schema.js';
