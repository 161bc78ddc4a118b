import { UpdateWorkspaceSettingsRequestSchema, type WorkspaceSettings } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../http/bearer-auth.guard.js';
import { requestFieldsOf, type Caller } from '../http/caller.js';
import { CurrentCaller } from '../http/current-caller.decorator.js';
import { WorkspaceSettingsApi } from './workspace-settings-api.service.js';

const SettingsBodySchema = UpdateWorkspaceSettingsRequestSchema.shape.settings;

/** `GET|POST /api/w/:workspace/workspace_settings`: the workspace's engine limits, as JSON. */
@Controller('api/w/:workspace/workspace_settings')
@UseGuards(BearerAuthGuard)
export class WorkspaceSettingsController {
  constructor(private readonly api: WorkspaceSettingsApi) {}

  @Get()
  get(@CurrentCaller() caller: Caller): Promise<WorkspaceSettings> {
    return this.api.get(requestFieldsOf(caller));
  }

  @Post()
  @HttpCode(200)
  update(
    @CurrentCaller() caller: Caller,
    @Body(validateWith(SettingsBodySchema)) settings: z.output<typeof SettingsBodySchema>,
  ): Promise<WorkspaceSettings> {
    return this.api.update({ ...requestFieldsOf(caller), settings });
  }
}
