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

export const QuestionToolValueSchema = named(
  'QuestionToolValue',
  "The built-in question tool: the model asks the flow's user (it sees the tool as ask_question), and the step waits for the answer (the run page's form, or POST jobs/flow/resume with the step's job id).",
  z.looseObject({
    tool_type: z.literal('question'),
    /**
     * How long the step waits for an answer before the model is told nobody answered (default
     * 1800, at most a day: the run's job token must outlive the wait).
     */
    timeout_s: z.int().min(1).max(86_400).optional(),
    /** The same in seconds, as issue 22 spells Windmill's `{tool_type: question, timeout?}`; `timeout_s` wins. */
    timeout: z.int().min(1).max(86_400).optional(),
  }),
);

/** The name the model calls the question tool by. */
export const QUESTION_TOOL_NAME = 'ask_question';

/** The name enabled_tools uses for a websearch tool, whatever its summary; no tool may take it. */
export const WEB_SEARCH_TOOL_NAME = '__wm_web_search';

export type McpToolValue = z.infer<typeof McpToolValueSchema>;
export type WebsearchToolValue = z.infer<typeof WebsearchToolValueSchema>;
export type QuestionToolValue = z.infer<typeof QuestionToolValueSchema>;
