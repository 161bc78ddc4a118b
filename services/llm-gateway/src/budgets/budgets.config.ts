import { readFileSync } from 'node:fs';
import { settings } from '@flowmesh/bootstrap';
import { z } from 'zod';
import { PriceTable, type ModelPrice } from './price-table.js';

export interface BudgetsConfig {
  readonly prices: PriceTable;
  /** Output tokens a call is reserved for when it sets no `maxOutputTokens`. */
  readonly defaultOutputReserve: number;
}

export const BUDGETS_CONFIG = Symbol.for('flowmesh.llm-gateway.BudgetsConfig');
export const BUDGETS_LOGGER = Symbol.for('flowmesh.llm-gateway.BudgetsLogger');

const PriceSchema = z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict();
const PricesSchema = z.record(z.string().min(1), PriceSchema);

/**
 * `FLOWMESH_GATEWAY_PRICES`: the operator's prices, US dollars per million tokens, as a JSON
 * object (`{"gpt-4o":{"input":2.5,"output":10},"azure_openai/gpt-4o":{...}}`) or the path of a
 * file holding one (a mounted ConfigMap). Read once at start; a bad entry stops the start.
 */
const pricesSetting = z
  .string()
  .optional()
  .transform((text, ctx): Record<string, ModelPrice> => {
    if (!text?.trim()) return {};
    let json: unknown;
    try {
      json = JSON.parse(text.trim().startsWith('{') ? text : readFileSync(text.trim(), 'utf8'));
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a JSON object of prices or a file holding one: ${describe(error)}`,
      });
      return z.NEVER;
    }
    const parsed = PricesSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      ctx.addIssue({
        code: 'custom',
        message: `${issue?.path.join('.') || '(root)'} ${issue?.message ?? 'is invalid'} (each entry: {"input": USD per 1M tokens, "output": USD per 1M tokens})`,
      });
      return z.NEVER;
    }
    return parsed.data;
  });

export const budgetsSettingsShape = {
  FLOWMESH_GATEWAY_PRICES: pricesSetting,
  FLOWMESH_GATEWAY_BUDGET_OUTPUT_RESERVE: settings.positiveInt().default(512),
};

type BudgetsSettings = z.output<z.ZodObject<typeof budgetsSettingsShape>>;

export function toBudgetsConfig(env: BudgetsSettings): BudgetsConfig {
  return {
    prices: new PriceTable(env.FLOWMESH_GATEWAY_PRICES),
    defaultOutputReserve: env.FLOWMESH_GATEWAY_BUDGET_OUTPUT_RESERVE,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
