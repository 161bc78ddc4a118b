import type { ServiceConfig } from '@flowmesh/bootstrap';
import { z } from 'zod';

/**
 * Settings only llm-gateway reads, keyed by environment variable. The common ones (NATS_URL,
 * DATABASE_URL, FLOWMESH_SUBJECT_PREFIX, ports, log level, shutdown timeout) come from
 * @flowmesh/bootstrap. None yet.
 */
export const llmGatewayConfigSchema = z.object({});

export type LlmGatewayConfig = ServiceConfig<z.output<typeof llmGatewayConfigSchema>>;
