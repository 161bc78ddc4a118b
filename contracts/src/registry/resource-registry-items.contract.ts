import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  CreateFlowRequestSchema,
  FlowPathRequestSchema,
  FlowSchema,
  GetFlowRequestSchema,
  ListFlowsReplySchema,
  ListFlowsRequestSchema,
  ListFlowVersionsReplySchema,
  UpdateFlowRequestSchema,
} from './flow.schema.js';
import { InterpolateReplySchema, InterpolateRequestSchema } from './interpolation.schema.js';
import {
  CreateResourceRequestSchema,
  CreateResourceTypeRequestSchema,
  ItemDeletedReplySchema,
  ItemExistsReplySchema,
  ListResourcesReplySchema,
  ListResourcesRequestSchema,
  ListResourceTypesReplySchema,
  ListResourceTypesRequestSchema,
  ResourcePathRequestSchema,
  ResourceSchema,
  ResourceTypeNameRequestSchema,
  ResourceTypeSchema,
  ResourceValueReplySchema,
  ResolvedResourceReplySchema,
  UpdateResourceRequestSchema,
  UpdateResourceTypeRequestSchema,
  UpdateResourceValueRequestSchema,
} from './resource.schema.js';
import {
  CreateScriptRequestSchema,
  GetScriptByHashRequestSchema,
  GetScriptRequestSchema,
  ListScriptsReplySchema,
  ListScriptsRequestSchema,
  ListScriptVersionsReplySchema,
  SavedScriptReplySchema,
  ScriptPathRequestSchema,
  ScriptSchema,
  UpdateScriptRequestSchema,
} from './script.schema.js';
import {
  CreateVariableRequestSchema,
  GetVariableRequestSchema,
  ListVariablesReplySchema,
  ListVariablesRequestSchema,
  UpdateVariableRequestSchema,
  VariablePathRequestSchema,
  VariableSchema,
  VariableValueReplySchema,
} from './variable.schema.js';

/**
 * Items of a workspace, answered by resource-registry: resources, resource types, variables,
 * scripts, flows and interpolation. Every request carries the caller's token (`actor`); an item
 * the caller may not read answers NOT_FOUND, exactly as one that does not exist.
 */
export const registryItemsContract = {
  getResource: defineRequest(
    'registry.resource.get',
    ResourcePathRequestSchema,
    ResourceSchema,
    SAFE_TO_REPEAT,
  ),
  getResourceValue: defineRequest(
    'registry.resource.get_value',
    ResourcePathRequestSchema,
    ResourceValueReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** The value with `$var:`/`$res:` references resolved as the caller (an agent's tools stay as written). */
  getResourceValueInterpolated: defineRequest(
    'registry.resource.get_value_interpolated',
    ResourcePathRequestSchema,
    ResourceValueReplySchema,
    SAFE_TO_REPEAT,
  ),
  /**
   * `registry.auth.authenticate`, `registry.resource.get` and `get_value_interpolated` in one
   * request, for a caller that uses a resource as itself (the llm-gateway's provider credentials):
   * the same access checks, one authentication.
   */
  resolveResource: defineRequest(
    'registry.resource.resolve',
    ResourcePathRequestSchema,
    ResolvedResourceReplySchema,
    SAFE_TO_REPEAT,
  ),
  resourceExists: defineRequest(
    'registry.resource.exists',
    ResourcePathRequestSchema,
    ItemExistsReplySchema,
    SAFE_TO_REPEAT,
  ),
  createResource: defineRequest('registry.resource.create', CreateResourceRequestSchema, ResourceSchema),
  updateResource: defineRequest('registry.resource.update', UpdateResourceRequestSchema, ResourceSchema),
  updateResourceValue: defineRequest(
    'registry.resource.update_value',
    UpdateResourceValueRequestSchema,
    ResourceSchema,
  ),
  deleteResource: defineRequest(
    'registry.resource.delete',
    ResourcePathRequestSchema,
    ItemDeletedReplySchema,
  ),
  listResources: defineRequest(
    'registry.resource.list',
    ListResourcesRequestSchema,
    ListResourcesReplySchema,
    SAFE_TO_REPEAT,
  ),

  getResourceType: defineRequest(
    'registry.resource_type.get',
    ResourceTypeNameRequestSchema,
    ResourceTypeSchema,
    SAFE_TO_REPEAT,
  ),
  createResourceType: defineRequest(
    'registry.resource_type.create',
    CreateResourceTypeRequestSchema,
    ResourceTypeSchema,
  ),
  updateResourceType: defineRequest(
    'registry.resource_type.update',
    UpdateResourceTypeRequestSchema,
    ResourceTypeSchema,
  ),
  deleteResourceType: defineRequest(
    'registry.resource_type.delete',
    ResourceTypeNameRequestSchema,
    ItemDeletedReplySchema,
  ),
  listResourceTypes: defineRequest(
    'registry.resource_type.list',
    ListResourceTypesRequestSchema,
    ListResourceTypesReplySchema,
    SAFE_TO_REPEAT,
  ),

  getVariable: defineRequest(
    'registry.variable.get',
    GetVariableRequestSchema,
    VariableSchema,
    SAFE_TO_REPEAT,
  ),
  getVariableValue: defineRequest(
    'registry.variable.get_value',
    VariablePathRequestSchema,
    VariableValueReplySchema,
    SAFE_TO_REPEAT,
  ),
  variableExists: defineRequest(
    'registry.variable.exists',
    VariablePathRequestSchema,
    ItemExistsReplySchema,
    SAFE_TO_REPEAT,
  ),
  createVariable: defineRequest('registry.variable.create', CreateVariableRequestSchema, VariableSchema),
  updateVariable: defineRequest('registry.variable.update', UpdateVariableRequestSchema, VariableSchema),
  deleteVariable: defineRequest(
    'registry.variable.delete',
    VariablePathRequestSchema,
    ItemDeletedReplySchema,
  ),
  listVariables: defineRequest(
    'registry.variable.list',
    ListVariablesRequestSchema,
    ListVariablesReplySchema,
    SAFE_TO_REPEAT,
  ),

  getScript: defineRequest('registry.script.get', GetScriptRequestSchema, ScriptSchema, SAFE_TO_REPEAT),
  getScriptByHash: defineRequest(
    'registry.script.get_by_hash',
    GetScriptByHashRequestSchema,
    ScriptSchema,
    SAFE_TO_REPEAT,
  ),
  scriptExists: defineRequest(
    'registry.script.exists',
    ScriptPathRequestSchema,
    ItemExistsReplySchema,
    SAFE_TO_REPEAT,
  ),
  createScript: defineRequest('registry.script.create', CreateScriptRequestSchema, SavedScriptReplySchema),
  updateScript: defineRequest('registry.script.update', UpdateScriptRequestSchema, SavedScriptReplySchema),
  deleteScript: defineRequest('registry.script.delete', ScriptPathRequestSchema, ItemDeletedReplySchema),
  listScripts: defineRequest(
    'registry.script.list',
    ListScriptsRequestSchema,
    ListScriptsReplySchema,
    SAFE_TO_REPEAT,
  ),
  listScriptVersions: defineRequest(
    'registry.script.list_versions',
    ScriptPathRequestSchema,
    ListScriptVersionsReplySchema,
    SAFE_TO_REPEAT,
  ),

  getFlow: defineRequest('registry.flow.get', GetFlowRequestSchema, FlowSchema, SAFE_TO_REPEAT),
  flowExists: defineRequest(
    'registry.flow.exists',
    FlowPathRequestSchema,
    ItemExistsReplySchema,
    SAFE_TO_REPEAT,
  ),
  createFlow: defineRequest('registry.flow.create', CreateFlowRequestSchema, FlowSchema),
  updateFlow: defineRequest('registry.flow.update', UpdateFlowRequestSchema, FlowSchema),
  deleteFlow: defineRequest('registry.flow.delete', FlowPathRequestSchema, ItemDeletedReplySchema),
  listFlows: defineRequest(
    'registry.flow.list',
    ListFlowsRequestSchema,
    ListFlowsReplySchema,
    SAFE_TO_REPEAT,
  ),
  listFlowVersions: defineRequest(
    'registry.flow.list_versions',
    FlowPathRequestSchema,
    ListFlowVersionsReplySchema,
    SAFE_TO_REPEAT,
  ),

  /** Resolves every `$var:`/`$res:` reference in `value` as the caller. */
  interpolate: defineRequest(
    'registry.interpolate',
    InterpolateRequestSchema,
    InterpolateReplySchema,
    SAFE_TO_REPEAT,
  ),
} as const;

export type RegistryItemsContract = typeof registryItemsContract;

/** `items.getResource({ actor, workspace, path })`, ... over any request transport (a `MeshClient`). */
export function createRegistryItemsClient(transport: RequestTransport) {
  return createContractClient(registryItemsContract, transport);
}
export type RegistryItemsClient = ReturnType<typeof createRegistryItemsClient>;
