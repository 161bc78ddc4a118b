import {
  JOB_TOKEN_PREFIX,
  apiTokenPrefix,
  type Actor,
  type AIProviderKind,
  type BudgetScope,
  type ChatParameters,
  type ChatUsage,
} from '@flowmesh/contracts';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable } from '@nestjs/common';
import { providerCallError } from '../providers/provider-call.error.js';
import { recordBudgetRefusal, recordSpend } from './budget.metrics.js';
import { estimatedUsage } from './call-estimate.js';
import { BUDGETS_CONFIG, BUDGETS_LOGGER, type BudgetsConfig } from './budgets.config.js';
import { SpendRepository, type Amount, type RefusingBudget, type SpendKey } from './spend.repository.js';

/** A model call about to be made, and what its spend counts toward. */
export interface BudgetedCall {
  readonly actor: Actor;
  readonly workspace: string;
  /** The run and flow of an agent step (`ChatRequest.budget`). */
  readonly budget?: { readonly run?: string; readonly flow?: string };
  readonly kind: AIProviderKind;
  readonly model: string;
  readonly parameters: ChatParameters;
}

/** A call's reservation; `settle` once, with what the provider said it used (nothing: failed). */
export interface Reservation {
  settle(usage?: ChatUsage): Promise<void>;
}

/**
 * The spend check before each model call: the call's estimate (its prompt's size, and its
 * `maxOutputTokens` or the default reserve) is reserved on its workspace, API token, flow and run
 * at once, only if it fits every budget set on them; after the call the estimate gives way to the
 * real usage, priced by the table. So concurrent calls overshoot a budget by at most what the
 * calls in flight use beyond their estimates.
 */
@Injectable()
export class BudgetGuard {
  constructor(
    private readonly spend: SpendRepository,
    @Inject(BUDGETS_CONFIG) private readonly config: BudgetsConfig,
    @Inject(BUDGETS_LOGGER) private readonly logger: Logger,
  ) {}

  /** Throws a `budget_exceeded` provider error naming the budget when the call does not fit. */
  async reserve(call: BudgetedCall): Promise<Reservation> {
    const keys = spendKeys(call);
    const estimate = this.estimate(call);
    let refusing: RefusingBudget | undefined;
    try {
      refusing = await this.spend.reserve(call.workspace, keys, estimate);
    } catch (error) {
      throw providerCallError(
        'bad_request_internal',
        `the gateway could not check the spend budgets: ${describe(error)}`,
        {
          provider: call.kind,
          model: call.model,
        },
      );
    }
    if (refusing) {
      recordBudgetRefusal(call.workspace, refusing.scope);
      throw providerCallError('budget_exceeded', refusalMessage(call.workspace, refusing, estimate), {
        provider: call.kind,
        model: call.model,
        budget: { scope: refusing.scope, target: refusing.target },
      });
    }
    let settled = false;
    return {
      settle: async (usage) => {
        if (settled) return;
        settled = true;
        const spent = this.price(call, usage);
        try {
          await this.spend.settle(call.workspace, keys, estimate, spent);
          recordSpend(call.workspace, spent.tokens, spent.usd);
        } catch (error) {
          // The reservation stays counted (the budget errs on the safe side); the spend is logged.
          this.logger.error(
            { workspace: call.workspace, tokens: spent.tokens, usd: spent.usd, err: describe(error) },
            'could not settle a model call on its spend budgets',
          );
        }
      },
    };
  }

  private estimate(call: BudgetedCall): Amount {
    return this.price(call, estimatedUsage(call.parameters, this.config.defaultOutputReserve));
  }

  private price(
    call: BudgetedCall,
    usage: { inputTokens: number; outputTokens: number } | undefined,
  ): Amount {
    if (!usage) return { tokens: 0, usd: 0 };
    return {
      tokens: usage.inputTokens + usage.outputTokens,
      usd: this.config.prices.costUsd(call.kind, call.model, usage) ?? 0,
    };
  }
}

/** The workspace's, the API token's (not a job's token), the flow's and the run's. */
export function spendKeys(call: Pick<BudgetedCall, 'actor' | 'budget'>): SpendKey[] {
  const keys: SpendKey[] = [{ scope: 'workspace', target: '' }];
  if (!call.actor.token.startsWith(JOB_TOKEN_PREFIX))
    keys.push({ scope: 'token', target: apiTokenPrefix(call.actor.token) });
  if (call.budget?.flow) keys.push({ scope: 'flow', target: call.budget.flow });
  if (call.budget?.run) keys.push({ scope: 'run', target: call.budget.run });
  return keys;
}

const SCOPE_NAMES: Record<BudgetScope, (target: string, workspace: string) => string> = {
  workspace: (_, workspace) => `the budget of workspace ${workspace}`,
  flow: (target) => `the budget of flow ${target}`,
  run: (target) => `the budget of run ${target}`,
  token: (target) => `the budget of API token ${target}`,
};

function refusalMessage(workspace: string, budget: RefusingBudget, estimate: Amount): string {
  const name = SCOPE_NAMES[budget.scope](budget.target, workspace);
  const parts: string[] = [];
  if (
    budget.maxTokens !== null &&
    budget.spentTokens + budget.reservedTokens + estimate.tokens > budget.maxTokens
  )
    parts.push(
      `${budget.spentTokens} of its ${budget.maxTokens} tokens spent, ${budget.reservedTokens} reserved by calls in flight, and this call may use ${estimate.tokens}`,
    );
  if (budget.maxUsd !== null && budget.spentUsd + budget.reservedUsd + estimate.usd > budget.maxUsd)
    parts.push(
      `$${usd(budget.spentUsd)} of its $${usd(budget.maxUsd)} spent, $${usd(budget.reservedUsd)} reserved by calls in flight, and this call may cost $${usd(estimate.usd)}`,
    );
  return `budget_exceeded: ${name} is spent (${parts.join('; ') || 'no room left'}); an admin of the workspace can raise it`;
}

function usd(value: number): string {
  return value.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
