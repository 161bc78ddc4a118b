import { SERVICE_CONFIG } from '@flowmesh/bootstrap';
import { Module, type DynamicModule } from '@nestjs/common';
import { TriggersSharedModule } from '../triggers-shared.module.js';
import { HttpRouteTable, ROUTE_TABLE_REFRESH_MS } from './http-route.table.js';
import { HttpTriggerStore } from './http-trigger.store.js';
import { HttpTriggersApi } from './http-triggers-api.service.js';
import { HttpTriggersController } from './http-triggers.controller.js';
import { HttpTriggersHandler } from './http-triggers.handler.js';
import { ROUTE_BODY_LIMIT_BYTES, RouteServingController } from './route-serving.controller.js';

/** How often each replica checks whether another one changed the routes (ms). */
const REFRESH_MS = 1_000;

/**
 * HTTP routes (Windmill's HTTP triggers), the service role's: their API over HTTP and
 * `orchestrator.http_trigger.*`, the in-memory route table, and the routes themselves at
 * `/api/r/...` (whose bodies `raw-body.middleware.ts` reads before any parser).
 */
@Module({})
export class HttpRoutesModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: HttpRoutesModule,
      imports: [runApi, TriggersSharedModule],
      controllers: [HttpTriggersController, HttpTriggersHandler, RouteServingController],
      providers: [
        { provide: ROUTE_TABLE_REFRESH_MS, useValue: REFRESH_MS },
        {
          provide: ROUTE_BODY_LIMIT_BYTES,
          useFactory: (config: { http: { bodyLimitBytes: number } }) => config.http.bodyLimitBytes,
          inject: [SERVICE_CONFIG],
        },
        HttpTriggerStore,
        HttpRouteTable,
        HttpTriggersApi,
      ],
    };
  }
}
