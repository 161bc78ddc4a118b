import { createOutboundDispatcher, OutboundPolicy } from '@flowmesh/outbound';
import type { ChatConfig } from '../chat/chat.config.js';
import type { EdgeConfig } from '../http/edge.config.js';
import { ProviderExecutor } from './provider-executor.js';

/**
 * The one executor of the process: every provider call goes through the SSRF-guarded dispatcher
 * (a user-given base URL may point anywhere; `FLOWMESH_OUTBOUND_ALLOW_CIDRS` opens internal
 * ranges), with the configured extra headers and timeouts.
 */
export function createProviderExecutor(chat: ChatConfig, edge: EdgeConfig): ProviderExecutor {
  const outboundPolicy = new OutboundPolicy(edge.outboundAllowCidrs);
  return new ProviderExecutor({
    outboundPolicy,
    dispatcher: createOutboundDispatcher(outboundPolicy, {
      keepAliveTimeout: 30_000,
      connections: 256,
    }),
    headers: edge.extraHeaders,
    headersTimeoutMs: chat.headersTimeoutMs,
    bodyTimeoutMs: chat.bodyTimeoutMs,
  });
}
