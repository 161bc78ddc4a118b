import { randomUUID } from 'node:crypto';
import { settings, type ServiceConfig } from '@flowmesh/bootstrap';
import { outboundAllowCidrsSetting } from '@flowmesh/outbound';
import { z } from 'zod';
import {
  approvalsSettingsShape,
  checkApprovalsSettings,
  toApprovalsConfig,
} from './approvals/approvals.config.js';
import { checkEngineSettings, engineSettingsShape, toEngineSettings } from './engine/engine.settings.js';
import type { EngineConfig } from './engine/engine.config.js';
import { grpcSettingsShape, toGrpcConfig } from './grpc/grpc.config.js';
import { apiSettingsShape, toApiConfig } from './http/api.config.js';
import { scriptRunnersSettingsShape, toScriptRunnersConfig } from './runners/script-runners.config.js';
import { mcpSettingsShape, toMcpConfig } from './triggers/mcp/mcp.config.js';

const TAG = /^[a-z0-9_-]+$/;

/**
 * Settings only flow-orchestrator reads, keyed by environment variable. The common ones
 * (NATS_URL, DATABASE_URL, FLOWMESH_ROLE, ports, ...) come from @flowmesh/bootstrap.
 */
export const flowOrchestratorConfigSchema = z
  .object({
    /** Worker tags a worker takes jobs for (`tag` in OpenFlow routes work), comma-separated. */
    FLOWMESH_WORKER_TAGS: settings
      .list()
      .refine(
        (tags) => tags.every((tag) => TAG.test(tag)),
        "must be tags of lowercase letters, digits, '-' or '_'",
      )
      .default(['default', 'flow']),
    /** Internal ranges the orchestrator may connect to all the same (a WebSocket trigger's URL). */
    FLOWMESH_OUTBOUND_ALLOW_CIDRS: outboundAllowCidrsSetting(),
    ...engineSettingsShape,
    ...apiSettingsShape,
    ...grpcSettingsShape,
    ...approvalsSettingsShape,
    ...scriptRunnersSettingsShape,
    ...mcpSettingsShape,
  })
  .superRefine((env, ctx) => {
    checkApprovalsSettings(env, ctx);
    checkEngineSettings(env, ctx);
  })
  .transform((env) => ({
    workerTags: env.FLOWMESH_WORKER_TAGS,
    outboundAllowCidrs: env.FLOWMESH_OUTBOUND_ALLOW_CIDRS,
    engine: toEngineSettings(env),
    api: toApiConfig(env),
    grpc: toGrpcConfig(env),
    approvals: toApprovalsConfig(env),
    runners: toScriptRunnersConfig(env),
    mcp: toMcpConfig(env),
  }));

export type FlowOrchestratorConfig = ServiceConfig<z.output<typeof flowOrchestratorConfigSchema>>;

/** The engine's settings as this process runs them: a fresh instance id, worker tags by role. */
export function engineConfigOf(config: FlowOrchestratorConfig): EngineConfig {
  const { engine } = config;
  return {
    instanceId: `${config.processName}-${randomUUID()}`,
    workerTags: config.role === 'worker' ? config.workerTags : [],
    workerConcurrency: engine.workerConcurrency,
    ackWaitMs: engine.ackWaitMs,
    // Below two thirds of the ack wait: a dead driver's lease is gone before its message comes back.
    leaseTtlMs: Math.max(300, Math.floor(engine.ackWaitMs / 2)),
    defaultTimeoutMs: engine.defaultTimeoutMs,
    defaultMemoryMb: engine.defaultMemoryMb,
    jobTokenTtlSeconds: engine.jobTokenTtlSeconds,
    liveAfterMs: engine.liveAfterMs,
    timerPollMs: engine.timerPollMs,
    maxInlineParallelism: engine.maxInlineParallelism,
    maxFlowDepth: engine.maxFlowDepth,
    jobTokenKeys: engine.jobTokenKeys,
  };
}
