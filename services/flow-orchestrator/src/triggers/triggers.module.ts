import { Module, type DynamicModule } from '@nestjs/common';
import { EventTriggersModule } from './event-triggers/event-triggers.module.js';
import { HttpRoutesModule } from './http-routes/http-routes.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { SchedulesModule } from './schedules/schedules.module.js';
import { TriggersSharedModule } from './triggers-shared.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

/**
 * What starts runs without a caller (schedules, HTTP routes, event triggers on brokers, webhooks:
 * the run-by-path routes in `webhooks/`, and the MCP server in `mcp/`): the service role's. Each kind is a module of its own in a folder of its
 * own, built on the run API (`runApi`: bearer auth, waiting for results) and `OwnerTokens`.
 */
@Module({})
export class TriggersModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: TriggersModule,
      imports: [
        runApi,
        TriggersSharedModule,
        SchedulesModule.forRoot(runApi),
        WebhooksModule.forRoot(runApi),
        HttpRoutesModule.forRoot(runApi),
        McpModule.forRoot(runApi),
        EventTriggersModule.forRoot(runApi),
      ],
    };
  }
}
