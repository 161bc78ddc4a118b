import {
  createOutboundDispatcher,
  createOutboundFetch,
  OutboundPolicy,
  type AllowedCidr,
  type OutboundFetch,
} from '@flowmesh/outbound';
import type { OnApplicationShutdown } from '@nestjs/common';

/**
 * The process's one SSRF-guarded HTTP client for user-given URLs (MCP servers): internal and
 * metadata addresses are refused unless `FLOWMESH_OUTBOUND_ALLOW_CIDRS` allows them, at every
 * redirect and every connect.
 */
export class OutboundClient implements OnApplicationShutdown {
  private readonly dispatcher;
  readonly fetch: OutboundFetch;

  constructor(allowCidrs: readonly AllowedCidr[]) {
    const policy = new OutboundPolicy(allowCidrs);
    this.dispatcher = createOutboundDispatcher(policy, { keepAliveTimeout: 10_000 });
    this.fetch = createOutboundFetch({ policy, dispatcher: this.dispatcher, maxRedirects: 5 });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.close().catch(() => undefined);
  }
}
