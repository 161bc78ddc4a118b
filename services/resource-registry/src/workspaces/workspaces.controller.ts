import { UsernameSchema, WorkspaceIdSchema } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Get, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import type { AccountIdentity } from '../auth/authenticated.js';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentAccount } from '../auth/current-identity.decorator.js';
import { WorkspacesService } from './workspaces.service.js';

const CreateWorkspaceBodySchema = z
  .object({ id: WorkspaceIdSchema, name: z.string().min(1).max(200), username: UsernameSchema.optional() })
  .strict();

@Controller('api/workspaces')
@UseGuards(BearerAuthGuard)
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get('list')
  async list(@CurrentAccount() account: AccountIdentity) {
    return (await this.workspaces.list(account)).map((w) => ({
      id: w.id,
      name: w.name,
      created_at: w.createdAt,
    }));
  }

  @Post('create')
  async create(
    @CurrentAccount() account: AccountIdentity,
    @Body(validateWith(CreateWorkspaceBodySchema)) body: z.output<typeof CreateWorkspaceBodySchema>,
  ) {
    const created = await this.workspaces.create(account, body);
    return { id: created.id, name: created.name, created_at: created.createdAt };
  }
}
