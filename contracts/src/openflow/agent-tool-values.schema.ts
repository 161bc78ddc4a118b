import { z } from 'zod';
import { named } from './openflow.registry.js';

export const McpToolValueSchema = named(
  'McpToolValue',
  'Reference to the tools of an external MCP server.',
  z.looseObject({
    tool_type: z.literal('mcp'),
    resource_path: z.string(),
    include_tools: z.array(z.string()).optional(),
    exclude_tools: z.array(z.string()).optional(),
  }),
);

export const WebsearchToolValueSchema = named(
  'WebsearchToolValue',
  "The provider's web search, offered to the agent as a tool.",
  z.looseObject({
    tool_type: z.literal('websearch'),
  }),
);

/** The name enabled_tools uses for a websearch tool, whatever its summary; no tool may take it. */
export const WEB_SEARCH_TOOL_NAME = '__wm_web_search';

export type McpToolValue = z.infer<typeof McpToolValueSchema>;
export type WebsearchToolValue = z.infer<typeof WebsearchToolValueSchema>;
