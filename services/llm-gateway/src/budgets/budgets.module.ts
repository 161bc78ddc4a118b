import type { Logger } from '@flowmesh/telemetry';
import { Module, type DynamicModule } from '@nestjs/common';
import { BudgetGuard } from './budget-guard.service.js';
import { BUDGETS_CONFIG, BUDGETS_LOGGER, type BudgetsConfig } from './budgets.config.js';
import { BudgetsHandler } from './budgets.handler.js';
import { BudgetsHttpController } from './budgets.http-controller.js';
import { BudgetsService } from './budgets.service.js';
import { SpendRepository } from './spend.repository.js';

/** Spend budgets: the check before each model call (`BudgetGuard`), and their admin API. */
@Module({})
export class BudgetsModule {
  static forRoot(config: BudgetsConfig, logger: Logger): DynamicModule {
    return {
      module: BudgetsModule,
      controllers: [BudgetsHandler, BudgetsHttpController],
      providers: [
        { provide: BUDGETS_CONFIG, useValue: config },
        { provide: BUDGETS_LOGGER, useValue: logger },
        SpendRepository,
        BudgetGuard,
        BudgetsService,
      ],
      exports: [BudgetGuard, BUDGETS_CONFIG],
    };
  }
}
