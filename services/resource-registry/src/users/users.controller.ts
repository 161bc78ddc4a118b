import { UsernameSchema, type CallerIdentity } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { AddUserBodySchema, UpdateUserBodySchema, userView, whoamiView } from './users.http.js';
import { UsersService } from './users.service.js';

const username = validateWith(UsernameSchema, 'username');

@Controller('api/w/:workspace/users')
@UseGuards(BearerAuthGuard)
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get('whoami')
  whoami(@CurrentIdentity() identity: CallerIdentity) {
    return whoamiView(this.users.whoami(identity));
  }

  @Get('list')
  async list(@CurrentIdentity() identity: CallerIdentity) {
    return (await this.users.list(identity)).map(userView);
  }

  @Get('get/:username')
  async get(@CurrentIdentity() identity: CallerIdentity, @Param('username', username) name: string) {
    return userView(await this.users.get(identity, name));
  }

  @Post('add')
  async add(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(AddUserBodySchema)) body: z.output<typeof AddUserBodySchema>,
  ) {
    return userView(
      await this.users.add(identity, { email: body.email, username: body.username, isAdmin: body.is_admin }),
    );
  }

  @Post('update/:username')
  async update(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('username', username) name: string,
    @Body(validateWith(UpdateUserBodySchema)) body: z.output<typeof UpdateUserBodySchema>,
  ) {
    return userView(await this.users.setAdmin(identity, name, body.is_admin));
  }

  @Delete('delete/:username')
  remove(@CurrentIdentity() identity: CallerIdentity, @Param('username', username) name: string) {
    return this.users.remove(identity, name);
  }
}
