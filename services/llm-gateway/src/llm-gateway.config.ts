import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';
import { auditSettingsShape, toAuditConfig } from './audit/audit.config.js';
import { budgetsSettingsShape, toBudgetsConfig } from './budgets/budgets.config.js';
import { chatSettingsShape, toChatConfig } from './chat/chat.config.js';
import { credentialsSettingsShape, toCredentialsConfig } from './credentials/credentials.config.js';
import { edgeSettingsShape, toEdgeConfig } from './http/edge.config.js';
import { mediaSettingsShape, toMediaConfig } from './media/media.config.js';

/**
 * Settings only llm-gateway reads, keyed by environment variable, parsed into a typed tree (one
 * branch per area). The common ones (NATS_URL, DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log
 * level, shutdown timeout) come from @flowmesh/bootstrap.
 */
export const llmGatewayConfigSchema = z
  .object({
    ...credentialsSettingsShape,
    ...auditSettingsShape,
    ...edgeSettingsShape,
    ...chatSettingsShape,
    ...mediaSettingsShape,
    ...budgetsSettingsShape,
  })
  .transform((env) => ({
    credentials: toCredentialsConfig(env),
    audit: toAuditConfig(env),
    edge: toEdgeConfig(env),
    chat: toChatConfig(env),
    media: toMediaConfig(env, env.FLOWMESH_GATEWAY_MAX_BODY_BYTES),
    budgets: toBudgetsConfig(env),
  }));

export type LlmGatewayConfig = ServiceConfig<z.output<typeof llmGatewayConfigSchema>>;
