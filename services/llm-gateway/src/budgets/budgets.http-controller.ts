import {
  DeleteBudgetRequestSchema,
  ListSpendRequestSchema,
  SetBudgetRequestSchema,
  type ListSpendReply,
  type Spend,
} from '@flowmesh/contracts';
import { parseWith, requireBearerToken } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Put, Query } from '@nestjs/common';
import { BudgetsService } from './budgets.service.js';

type Query = Record<string, string | undefined>;

/**
 * `PUT|DELETE /api/w/:workspace/ai/budgets` and `GET /api/w/:workspace/ai/spend`: what NATS'
 * `gateway.budget.*` and `gateway.spend.list` do, with the bearer token as the actor.
 */
@Controller('api/w/:workspace/ai')
export class BudgetsHttpController {
  constructor(private readonly budgets: BudgetsService) {}

  @Put('budgets')
  @HttpCode(200)
  set(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspace') workspace: string,
    @Body() body: unknown,
  ): Promise<Spend> {
    const actor = { token: requireBearerToken(authorization) };
    const fields = typeof body === 'object' && body !== null ? body : {};
    return this.budgets.set(parseWith(SetBudgetRequestSchema, { ...fields, actor, workspace }));
  }

  @Delete('budgets')
  delete(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspace') workspace: string,
    @Query() query: Query,
  ): Promise<{ deleted: boolean }> {
    const actor = { token: requireBearerToken(authorization) };
    const request = {
      actor,
      workspace,
      scope: query.scope,
      ...(query.target ? { target: query.target } : {}),
    };
    return this.budgets.delete(parseWith(DeleteBudgetRequestSchema, request, 'query'));
  }

  /** `?scope=run&target=<root job id>`, `?budgeted_only=true`, `?limit=`. */
  @Get('spend')
  list(
    @Headers('authorization') authorization: string | undefined,
    @Param('workspace') workspace: string,
    @Query() query: Query,
  ): Promise<ListSpendReply> {
    const actor = { token: requireBearerToken(authorization) };
    const request = {
      actor,
      workspace,
      ...(query.scope ? { scope: query.scope } : {}),
      ...(query.target ? { target: query.target } : {}),
      ...(query.budgeted_only !== undefined ? { budgetedOnly: query.budgeted_only === 'true' } : {}),
      ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
    };
    return this.budgets.list(parseWith(ListSpendRequestSchema, request, 'query'));
  }
}
