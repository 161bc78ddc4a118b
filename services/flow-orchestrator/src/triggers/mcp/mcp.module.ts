import { SERVICE_CONFIG } from '@flowmesh/bootstrap';
import { Module, type DynamicModule } from '@nestjs/common';
import { TriggersSharedModule } from '../triggers-shared.module.js';
import { WebhookAuthGuard } from '../webhooks/webhook-auth.guard.js';
import { McpAuthGuard } from './mcp-auth.guard.js';
import { McpController } from './mcp.controller.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { MCP_CONFIG, McpToolCallService } from './mcp-tool-call.service.js';
import { McpToolsService } from './mcp-tools.service.js';

/**
 * flowmesh as an MCP server: each workspace's endpoint at the entry point
 * (`/api/mcp/w/<workspace>/mcp`), whose tools are the scripts and flows a token's MCP scope names,
 * built on the run API (`runApi`: authentication, waiting for results) and the run use cases.
 */
@Module({})
export class McpModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: McpModule,
      imports: [runApi, TriggersSharedModule],
      controllers: [McpController],
      providers: [
        {
          provide: MCP_CONFIG,
          useFactory: (config: { mcp: unknown }) => config.mcp,
          inject: [SERVICE_CONFIG],
        },
        WebhookAuthGuard,
        McpAuthGuard,
        McpToolsService,
        McpToolCallService,
        McpServerFactory,
      ],
    };
  }
}
