import { settings } from '@flowmesh/bootstrap';
import { outboundAllowCidrsSetting, type AllowedCidr } from '@flowmesh/outbound';
import { type z } from 'zod';
import { extraHeadersSetting } from '../proxy/extra-headers.setting.js';

/** Settings of the gateway's HTTP surfaces and of its calls out. */
export interface EdgeConfig {
  /** Silence on a streaming response before a `: keepalive` comment goes out. */
  readonly sseKeepaliveMs: number;
  /** Headers sent to every provider, below the resource's own `custom_headers`. */
  readonly extraHeaders: Readonly<Record<string, string>>;
  /** `FLOWMESH_OUTBOUND_ALLOW_CIDRS`: internal ranges provider URLs may reach. */
  readonly outboundAllowCidrs: readonly AllowedCidr[];
  /** The largest request body the HTTP API takes (images and PDFs travel inline). */
  readonly maxBodyBytes: number;
}

export const EDGE_CONFIG = Symbol.for('flowmesh.llm-gateway.EdgeConfig');

export const edgeSettingsShape = {
  FLOWMESH_GATEWAY_SSE_KEEPALIVE_MS: settings.positiveInt().default(15_000),
  FLOWMESH_GATEWAY_EXTRA_HEADERS: extraHeadersSetting(),
  FLOWMESH_OUTBOUND_ALLOW_CIDRS: outboundAllowCidrsSetting(),
  FLOWMESH_GATEWAY_MAX_BODY_BYTES: settings.positiveInt().default(32 * 1024 * 1024),
};

type EdgeSettings = z.output<z.ZodObject<typeof edgeSettingsShape>>;

export function toEdgeConfig(env: EdgeSettings): EdgeConfig {
  return {
    sseKeepaliveMs: env.FLOWMESH_GATEWAY_SSE_KEEPALIVE_MS,
    extraHeaders: env.FLOWMESH_GATEWAY_EXTRA_HEADERS,
    outboundAllowCidrs: env.FLOWMESH_OUTBOUND_ALLOW_CIDRS,
    maxBodyBytes: env.FLOWMESH_GATEWAY_MAX_BODY_BYTES,
  };
}
