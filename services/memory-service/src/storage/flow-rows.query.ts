import type { DataSource } from 'typeorm';

/** The tables whose rows belong to a flow (`flow_path`) and are read a page at a time. */
export type FlowRowsTable = 'ai_agent_memory' | 'flow_conversation';

/** The flows the rows of `table` belong to in the workspace (only `flowPath`, when given). */
export async function distinctFlowPaths(
  dataSource: DataSource,
  table: FlowRowsTable,
  workspace: string,
  flowPath?: string,
): Promise<string[]> {
  const rows: Array<{ flow_path: string }> = await dataSource.query(
    `SELECT DISTINCT flow_path FROM ${table} WHERE workspace_id = $1 AND ($2::text IS NULL OR flow_path = $2)`,
    [workspace, flowPath ?? null],
  );
  return rows.map((row) => row.flow_path);
}

/**
 * A page of rows of the flows `flowPaths`: `select` takes the workspace as `$1` and the flows as
 * `$2` (`flow_path = ANY($2::text[])`) and ends with its ORDER BY; the page's LIMIT is added here.
 */
export async function pageOfFlowRows<Raw>(
  dataSource: DataSource,
  select: string,
  workspace: string,
  flowPaths: readonly string[],
  page: number,
  perPage: number,
): Promise<Raw[]> {
  if (flowPaths.length === 0) return [];
  return dataSource.query(`${select} LIMIT $3 OFFSET $4`, [
    workspace,
    flowPaths,
    perPage,
    (page - 1) * perPage,
  ]);
}
