import { Module, type DynamicModule } from '@nestjs/common';
import { TriggersSharedModule } from '../triggers-shared.module.js';
import { WebhookAuthGuard } from './webhook-auth.guard.js';
import { WebhooksController } from './webhooks.controller.js';

/**
 * Webhooks: a flow's or script's run by path over HTTP, applying its preprocessor
 * (`webhooks.controller.ts`), on the run API's authentication and waiting for results (`runApi`).
 */
@Module({})
export class WebhooksModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: WebhooksModule,
      imports: [runApi, TriggersSharedModule],
      controllers: [WebhooksController],
      providers: [WebhookAuthGuard],
    };
  }
}
