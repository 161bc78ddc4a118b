import { GroupNameSchema, type CallerIdentity } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { CreateGroupBodySchema, GroupMemberBodySchema, groupView } from './groups.http.js';
import { GroupsService } from './groups.service.js';

const groupName = validateWith(GroupNameSchema, 'group name');
type MemberBody = z.output<typeof GroupMemberBodySchema>;

@Controller('api/w/:workspace/groups')
@UseGuards(BearerAuthGuard)
export class GroupsController {
  constructor(private readonly groups: GroupsService) {}

  @Get('list')
  async list(@CurrentIdentity() identity: CallerIdentity) {
    return (await this.groups.list(identity)).map(groupView);
  }

  @Get('get/:name')
  async get(@CurrentIdentity() identity: CallerIdentity, @Param('name', groupName) name: string) {
    return groupView(await this.groups.get(identity, name));
  }

  @Post('create')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateGroupBodySchema)) body: z.output<typeof CreateGroupBodySchema>,
  ) {
    return groupView(await this.groups.create(identity, body.name, body.summary));
  }

  @Delete('delete/:name')
  delete(@CurrentIdentity() identity: CallerIdentity, @Param('name', groupName) name: string) {
    return this.groups.delete(identity, name);
  }

  @Post('adduser/:name')
  async addUser(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('name', groupName) name: string,
    @Body(validateWith(GroupMemberBodySchema)) body: MemberBody,
  ) {
    return groupView(await this.groups.addMember(identity, name, body.username));
  }

  @Post('removeuser/:name')
  async removeUser(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('name', groupName) name: string,
    @Body(validateWith(GroupMemberBodySchema)) body: MemberBody,
  ) {
    return groupView(await this.groups.removeMember(identity, name, body.username));
  }
}
