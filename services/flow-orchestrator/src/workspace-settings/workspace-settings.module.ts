import { Module, type DynamicModule } from '@nestjs/common';
import { WorkspaceSettingsApi } from './workspace-settings-api.service.js';
import { WorkspaceSettingsController } from './workspace-settings.controller.js';
import { WorkspaceSettingsHandler } from './workspace-settings.handler.js';

/** A workspace's engine settings over HTTP and NATS (the service role's); `runApi` gives auth. */
@Module({})
export class WorkspaceSettingsModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: WorkspaceSettingsModule,
      imports: [runApi],
      controllers: [WorkspaceSettingsController, WorkspaceSettingsHandler],
      providers: [WorkspaceSettingsApi],
    };
  }
}
