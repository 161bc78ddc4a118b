import {
  createRegistryItemsClient,
  MeshError,
  mcpScopeCovers,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { requestFieldsOf, type Caller } from '../../http/caller.js';
import { toolOf, type ToolSource } from './mcp-tool.js';
import { toolNames, type ToolItem } from './mcp-tool-names.js';

/** The most tools one token is offered: an agent reads every tool's schema on each session. */
export const MAX_TOOLS = 500;
/** Items whose schema is read at once when listing. */
const READS_AT_ONCE = 8;

/**
 * The tools of a token: the scripts and flows its MCP scope names and its user may read (the
 * registry lists them with the token, so ownership, folders and scopes all apply), by name.
 */
@Injectable()
export class McpToolsService {
  private readonly items: RegistryItemsClient;

  constructor(client: MeshClient) {
    this.items = createRegistryItemsClient(client);
  }

  /** Every tool of the caller, by name, mapped back to its item. */
  async named(caller: Caller): Promise<Map<string, ToolItem>> {
    const request = requestFieldsOf(caller);
    const scopes = caller.identity.scopes;
    const [{ scripts }, { flows }] = await Promise.all([
      this.items.listScripts(request),
      this.items.listFlows(request),
    ]);
    const items: ToolItem[] = [
      ...scripts
        .filter((script) => mcpScopeCovers(scopes, script.path, 'scripts'))
        .map((script) => ({ kind: 'script' as const, path: script.path })),
      ...flows
        .filter((flow) => mcpScopeCovers(scopes, flow.path, 'flows'))
        .map((flow) => ({ kind: 'flow' as const, path: flow.path })),
    ];
    return toolNames(items.slice(0, MAX_TOOLS));
  }

  /** The item tool `name` stands for, read now; undefined when the caller has no such tool. */
  async find(caller: Caller, name: string): Promise<ToolSource | undefined> {
    const item = (await this.named(caller)).get(name);
    return item && this.source(caller, item);
  }

  /** The caller's tools as MCP lists them (each item read once for its schema). */
  async list(caller: Caller): Promise<Tool[]> {
    const entries = [...(await this.named(caller))];
    const tools: Tool[] = [];
    for (let at = 0; at < entries.length; at += READS_AT_ONCE) {
      const batch = entries.slice(at, at + READS_AT_ONCE);
      const read = await Promise.all(batch.map(([, item]) => this.source(caller, item)));
      read.forEach((source, i) => {
        if (source) tools.push(toolOf(batch[i][0], source));
      });
    }
    return tools;
  }

  /** The item as its tool shows it; undefined when it went away since it was listed. */
  private async source(caller: Caller, item: ToolItem): Promise<ToolSource | undefined> {
    const request = { ...requestFieldsOf(caller), path: item.path };
    try {
      const saved =
        item.kind === 'script' ? await this.items.getScript(request) : await this.items.getFlow(request);
      return { ...item, summary: saved.summary, description: saved.description, schema: saved.schema };
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }
}
