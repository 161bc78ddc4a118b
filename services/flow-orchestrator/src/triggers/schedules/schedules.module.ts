import { Module, type DynamicModule } from '@nestjs/common';
import { TriggersSharedModule } from '../triggers-shared.module.js';
import { ScheduleRunStarter } from './schedule-run.starter.js';
import { ScheduleRunsListener } from './schedule-runs.listener.js';
import { ScheduleStore } from './schedule.store.js';
import { ScheduleTicker } from './schedule.ticker.js';
import { ScheduleValidator } from './schedule.validator.js';
import { SchedulesApi } from './schedules-api.service.js';
import { SchedulesController } from './schedules.controller.js';
import { SchedulesHandler } from './schedules.handler.js';

/**
 * Schedules (the service role's): Windmill's schedule API over HTTP and `orchestrator.schedule.*`,
 * the ticker that fires them on every replica (each tick once), and the follower of their runs'
 * ends that starts their handlers. `runApi` gives bearer auth and the caller resolver.
 */
@Module({})
export class SchedulesModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: SchedulesModule,
      imports: [runApi, TriggersSharedModule],
      controllers: [SchedulesController, SchedulesHandler, ScheduleRunsListener],
      providers: [ScheduleStore, ScheduleValidator, SchedulesApi, ScheduleRunStarter, ScheduleTicker],
    };
  }
}
