import type { BudgetScope, Spend } from '@flowmesh/contracts';
import { rowsOf } from '@flowmesh/persistence';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** One row of `llm_spend`: a workspace's scope (`target` empty for the workspace itself). */
export interface SpendKey {
  readonly scope: BudgetScope;
  readonly target: string;
}

export interface Amount {
  readonly tokens: number;
  readonly usd: number;
}

/** The row whose limit a reservation would pass. */
export interface RefusingBudget extends SpendKey {
  readonly maxTokens: number | null;
  readonly maxUsd: number | null;
  readonly spentTokens: number;
  readonly spentUsd: number;
  readonly reservedTokens: number;
  readonly reservedUsd: number;
}

interface SpendRow {
  scope: BudgetScope;
  target: string;
  max_tokens: string | null;
  max_usd: string | null;
  spent_tokens: string;
  spent_usd: string;
  reserved_tokens: string;
  reserved_usd: string;
  updated_at: Date;
}

/**
 * Reserves a call's estimate on each of its scopes only where it fits: the conditional upsert takes
 * the row's lock, so replicas reserving at once are serialized per row and none sees stale spend.
 */
const RESERVE = `
  INSERT INTO "llm_spend" ("workspace", "scope", "target", "reserved_tokens", "reserved_usd")
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT ("workspace", "scope", "target") DO UPDATE SET
    "reserved_tokens" = "llm_spend"."reserved_tokens" + EXCLUDED."reserved_tokens",
    "reserved_usd" = "llm_spend"."reserved_usd" + EXCLUDED."reserved_usd",
    "updated_at" = now()
  WHERE ("llm_spend"."max_tokens" IS NULL
         OR "llm_spend"."spent_tokens" + "llm_spend"."reserved_tokens" + EXCLUDED."reserved_tokens" <= "llm_spend"."max_tokens")
    AND ("llm_spend"."max_usd" IS NULL
         OR "llm_spend"."spent_usd" + "llm_spend"."reserved_usd" + EXCLUDED."reserved_usd" <= "llm_spend"."max_usd")
  RETURNING 1`;

/** Moves a call's estimate from reserved to its real spend. */
const SETTLE = `
  UPDATE "llm_spend" SET
    "reserved_tokens" = GREATEST("reserved_tokens" - $4, 0),
    "reserved_usd" = GREATEST("reserved_usd" - $5, 0),
    "spent_tokens" = "spent_tokens" + $6,
    "spent_usd" = "spent_usd" + $7,
    "updated_at" = now()
  WHERE "workspace" = $1 AND "scope" = $2 AND "target" = $3`;

const COLUMNS = `"scope", "target", "max_tokens", "max_usd", "spent_tokens", "spent_usd",
  "reserved_tokens", "reserved_usd", "updated_at"`;

/** `llm_spend`: budgets and spend per workspace scope. */
@Injectable()
export class SpendRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Reserves `amount` on every key, or on none: the first key whose budget it would pass is
   * returned (and nothing is kept). Keys are locked in primary-key order, so two reservations
   * never wait on each other in a cycle.
   */
  async reserve(
    workspace: string,
    keys: readonly SpendKey[],
    amount: Amount,
  ): Promise<RefusingBudget | undefined> {
    const ordered = [...keys].sort(byPrimaryKey);
    return this.dataSource
      .transaction(async (manager) => {
        for (const key of ordered) {
          const kept = rowsOf<unknown>(
            await manager.query(RESERVE, [workspace, key.scope, key.target, amount.tokens, amount.usd]),
          );
          if (kept.length > 0) continue;
          // Thrown so that the transaction rolls back the keys reserved before this one.
          throw new Refused(await this.read(manager, workspace, key));
        }
        return undefined;
      })
      .catch((error: unknown) => {
        if (error instanceof Refused) return error.budget;
        throw error;
      });
  }

  /** One statement a key, each on its own: a settle never holds one row while waiting for another. */
  async settle(workspace: string, keys: readonly SpendKey[], reserved: Amount, spent: Amount): Promise<void> {
    for (const key of [...keys].sort(byPrimaryKey)) {
      await this.dataSource.query(SETTLE, [
        workspace,
        key.scope,
        key.target,
        reserved.tokens,
        reserved.usd,
        spent.tokens,
        spent.usd,
      ]);
    }
  }

  /** Sets a key's limits (null: none), keeping its spend. */
  async setLimits(
    workspace: string,
    key: SpendKey,
    limits: { maxTokens: number | null; maxUsd: number | null },
  ): Promise<Spend> {
    const rows = await this.dataSource.query<SpendRow[]>(
      `INSERT INTO "llm_spend" ("workspace", "scope", "target", "max_tokens", "max_usd")
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT ("workspace", "scope", "target") DO UPDATE SET
         "max_tokens" = EXCLUDED."max_tokens", "max_usd" = EXCLUDED."max_usd", "updated_at" = now()
       RETURNING ${COLUMNS}`,
      [workspace, key.scope, key.target, limits.maxTokens, limits.maxUsd],
    );
    return toSpend(rows[0]);
  }

  /** Removes a key's limits (its spend stays readable); false when it had none. */
  async clearLimits(workspace: string, key: SpendKey): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE "llm_spend" SET "max_tokens" = NULL, "max_usd" = NULL, "updated_at" = now()
         WHERE "workspace" = $1 AND "scope" = $2 AND "target" = $3
           AND ("max_tokens" IS NOT NULL OR "max_usd" IS NOT NULL)
         RETURNING 1`,
        [workspace, key.scope, key.target],
      ),
    );
    return rows.length > 0;
  }

  async list(
    workspace: string,
    filter: { scope?: BudgetScope; target?: string; budgetedOnly?: boolean; limit: number },
  ): Promise<Spend[]> {
    const rows = await this.dataSource.query<SpendRow[]>(
      `SELECT ${COLUMNS} FROM "llm_spend"
       WHERE "workspace" = $1
         AND ($2::text IS NULL OR "scope" = $2)
         AND ($3::text IS NULL OR "target" = $3)
         AND (NOT $4 OR "max_tokens" IS NOT NULL OR "max_usd" IS NOT NULL)
       ORDER BY "updated_at" DESC
       LIMIT $5`,
      [workspace, filter.scope ?? null, filter.target ?? null, filter.budgetedOnly ?? false, filter.limit],
    );
    return rows.map(toSpend);
  }

  private async read(manager: EntityManager, workspace: string, key: SpendKey): Promise<RefusingBudget> {
    const rows = await manager.query<SpendRow[]>(
      `SELECT ${COLUMNS} FROM "llm_spend" WHERE "workspace" = $1 AND "scope" = $2 AND "target" = $3`,
      [workspace, key.scope, key.target],
    );
    return toSpend(rows[0]);
  }
}

/** Thrown inside the reservation's transaction so that it rolls back. */
class Refused extends Error {
  constructor(readonly budget: RefusingBudget) {
    super('budget refused');
  }
}

function byPrimaryKey(a: SpendKey, b: SpendKey): number {
  return a.scope === b.scope ? compare(a.target, b.target) : compare(a.scope, b.scope);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function toSpend(row: SpendRow): Spend {
  return {
    scope: row.scope,
    target: row.target,
    maxTokens: row.max_tokens === null ? null : Number(row.max_tokens),
    maxUsd: row.max_usd === null ? null : Number(row.max_usd),
    spentTokens: Number(row.spent_tokens),
    spentUsd: Number(row.spent_usd),
    reservedTokens: Number(row.reserved_tokens),
    reservedUsd: Number(row.reserved_usd),
    updatedAt: row.updated_at.toISOString(),
  };
}
