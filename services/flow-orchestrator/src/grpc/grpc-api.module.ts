import { Module, type DynamicModule } from '@nestjs/common';
import { BudgetsGrpcController } from './budgets.grpc.controller.js';
import { ItemsGrpcController } from './items.grpc.controller.js';
import { JobWatch } from './job-watch.service.js';
import { JobsGrpcController } from './jobs.grpc.controller.js';
import { TriggersGrpcController } from './triggers.grpc.controller.js';

/**
 * `flowmesh.v1.Jobs`, `Resources`, `Variables`, the triggers and `Budgets`, served by the gRPC transport when
 * FLOWMESH_GRPC_PORT is set (`grpc-server.ts`): the run API's use cases (`runApi`, the same
 * module instance the service imports) behind another transport.
 */
@Module({})
export class GrpcApiModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: GrpcApiModule,
      imports: [runApi],
      controllers: [JobsGrpcController, ItemsGrpcController, TriggersGrpcController, BudgetsGrpcController],
      providers: [JobWatch],
    };
  }
}
