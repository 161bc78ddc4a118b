import { gatewayBudgetContract, type RequestOf } from '@flowmesh/contracts';
import { HandleRequest } from '@flowmesh/messaging';
import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { BudgetsService } from './budgets.service.js';

/** Budgets and spend over NATS (`gateway.budget.*`, `gateway.spend.list`). */
@Controller()
export class BudgetsHandler {
  constructor(private readonly budgets: BudgetsService) {}

  @HandleRequest(gatewayBudgetContract.setBudget)
  set(@Payload() request: RequestOf<typeof gatewayBudgetContract.setBudget>) {
    return this.budgets.set(request);
  }

  @HandleRequest(gatewayBudgetContract.deleteBudget)
  delete(@Payload() request: RequestOf<typeof gatewayBudgetContract.deleteBudget>) {
    return this.budgets.delete(request);
  }

  @HandleRequest(gatewayBudgetContract.listSpend)
  list(@Payload() request: RequestOf<typeof gatewayBudgetContract.listSpend>) {
    return this.budgets.list(request);
  }
}
