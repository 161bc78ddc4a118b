import { settings } from '@flowmesh/bootstrap';
import type { z } from 'zod';

/** Settings of the MCP server (`/api/mcp/w/<workspace>/mcp`), keyed by environment variable. */
export const mcpSettingsShape = {
  /**
   * How long a tool call waits for its run (ms). Past it the call answers a tool error naming the
   * job, which goes on: a client never holds a request (nor this process a waiter) unbounded.
   */
  FLOWMESH_MCP_CALL_TIMEOUT_MS: settings.positiveInt().default(600_000),
  /** How often a waiting tool call sends a progress notification, when the client asked for them (ms). */
  FLOWMESH_MCP_PROGRESS_INTERVAL_MS: settings.positiveInt().default(5_000),
};

export interface McpConfig {
  readonly callTimeoutMs: number;
  readonly progressIntervalMs: number;
}

type McpSettings = z.output<z.ZodObject<typeof mcpSettingsShape>>;

export function toMcpConfig(env: McpSettings): McpConfig {
  return {
    callTimeoutMs: env.FLOWMESH_MCP_CALL_TIMEOUT_MS,
    progressIntervalMs: env.FLOWMESH_MCP_PROGRESS_INTERVAL_MS,
  };
}
