import { z } from 'zod';
import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';

/**
 * Spend budgets of model calls, kept by the llm-gateway. Every chat counts toward its workspace,
 * its API token (a call made with an API token, named by the prefix token lists show), and the
 * flow and run it belongs to (`ChatRequest.budget`, which agent steps send). A budget caps one of
 * those in tokens, in US dollars (from the gateway's price table), or both; a call is let through
 * only when its estimate fits what is left, so concurrent calls overshoot by no more than what the
 * calls in flight use beyond their estimates. Only workspace admins set or read budgets.
 */
export const BUDGET_SCOPES = ['workspace', 'flow', 'run', 'token'] as const;
export const BudgetScopeSchema = z.enum(BUDGET_SCOPES);
export type BudgetScope = z.infer<typeof BudgetScopeSchema>;

/**
 * What a budget applies to: `target` is the flow path, the run's root job id, or the API token's
 * prefix; a workspace budget has none.
 */
const budgetKey = {
  actor: ActorSchema,
  workspace: WorkspaceIdSchema,
  scope: BudgetScopeSchema,
  target: z.string().min(1, 'must not be empty').max(300).optional(),
};

function targetMatchesScope(
  value: { scope: BudgetScope; target?: string | undefined },
  ctx: z.RefinementCtx,
) {
  if (value.scope === 'workspace' && value.target !== undefined)
    ctx.addIssue({ code: 'custom', path: ['target'], message: 'a workspace budget has no target' });
  if (value.scope !== 'workspace' && value.target === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['target'],
      message: `a ${value.scope} budget needs its target (${TARGET_OF[value.scope]})`,
    });
}

const TARGET_OF: Record<Exclude<BudgetScope, 'workspace'>, string> = {
  flow: 'the flow path',
  run: "the run's root job id",
  token: "the API token's prefix, as token lists show it",
};

export const SetBudgetRequestSchema = z
  .object({
    ...budgetKey,
    /** Most tokens (input + output) the scope may spend; null: no token limit. */
    maxTokens: z.int().positive().nullable().optional(),
    /** Most US dollars the scope may spend, priced by the gateway's table; null: no money limit. */
    maxUsd: z.number().positive().nullable().optional(),
  })
  .strict()
  .superRefine((value, ctx) => {
    targetMatchesScope(value, ctx);
    if (value.maxTokens == null && value.maxUsd == null)
      ctx.addIssue({
        code: 'custom',
        path: ['maxTokens'],
        message: 'a budget needs maxTokens, maxUsd or both',
      });
  });
export type SetBudgetRequest = z.infer<typeof SetBudgetRequestSchema>;

export const DeleteBudgetRequestSchema = z.object(budgetKey).strict().superRefine(targetMatchesScope);

/** Spend of a workspace's scopes; `scope` and `target` narrow it. */
export const ListSpendRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    scope: BudgetScopeSchema.optional(),
    target: z.string().min(1).max(300).optional(),
    /** Only scopes with a budget set. */
    budgetedOnly: z.boolean().optional(),
    limit: z.int().positive().max(1000).default(100),
  })
  .strict();

/** One scope's limits and spend: `reserved*` are the estimates of calls in flight. */
export const SpendSchema = z.object({
  scope: BudgetScopeSchema,
  /** Empty for the workspace. */
  target: z.string(),
  maxTokens: z.number().nullable(),
  maxUsd: z.number().nullable(),
  spentTokens: z.number(),
  spentUsd: z.number(),
  reservedTokens: z.number(),
  reservedUsd: z.number(),
  updatedAt: z.string(),
});
export type Spend = z.infer<typeof SpendSchema>;

export const ListSpendReplySchema = z.object({ spend: z.array(SpendSchema) });
export type ListSpendReply = z.infer<typeof ListSpendReplySchema>;

export const gatewayBudgetContract = {
  setBudget: defineRequest('gateway.budget.set', SetBudgetRequestSchema, SpendSchema),
  deleteBudget: defineRequest(
    'gateway.budget.delete',
    DeleteBudgetRequestSchema,
    z.object({ deleted: z.boolean() }),
  ),
  listSpend: defineRequest(
    'gateway.spend.list',
    ListSpendRequestSchema,
    ListSpendReplySchema,
    SAFE_TO_REPEAT,
  ),
} as const;

export function createGatewayBudgetClient(transport: RequestTransport) {
  return createContractClient(gatewayBudgetContract, transport);
}
export type GatewayBudgetClient = ReturnType<typeof createGatewayBudgetClient>;
