import { z } from 'zod';

/**
 * What can start a run without a caller, as Windmill's `trigger_kind` names them: a webhook (a
 * run by path over HTTP), an HTTP route, a schedule, an event trigger on a broker, the MCP server.
 */
export const TRIGGER_KINDS = [
  'webhook',
  'http',
  'schedule',
  'nats',
  'mqtt',
  'postgres',
  'websocket',
  'kafka',
  'amqp',
  'mcp',
  'email',
] as const;
export const TriggerKindSchema = z.enum(TRIGGER_KINDS);
export type TriggerKind = z.infer<typeof TriggerKindSchema>;

/** The trigger that started a run: its kind and its path (a schedule's, a route's, the item's for a webhook). */
export const TriggerRefSchema = z
  .object({ kind: TriggerKindSchema, path: z.string().min(1).max(1000) })
  .strict();
export type TriggerRef = z.infer<typeof TriggerRefSchema>;

/**
 * What a trigger hands the runnable's preprocessor (Windmill's v2 `event`): its `kind` and what
 * that kind carries (`body`, `raw_string`, `query`, `headers` for a webhook; `route`, `path`,
 * `method`, `params` too for an HTTP route; ...).
 */
export const TriggerEventSchema = z.object({ kind: z.string().min(1).max(64) }).catchall(z.unknown());
export type TriggerEvent = z.infer<typeof TriggerEventSchema>;
