import { FolderNameSchema, type CallerIdentity } from '@flowmesh/contracts';
import { validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Param, Post, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { CreateFolderBodySchema, folderView, UpdateFolderBodySchema } from './folders.http.js';
import { FoldersService } from './folders.service.js';

const folderName = validateWith(FolderNameSchema, 'folder name');

@Controller('api/w/:workspace/folders')
@UseGuards(BearerAuthGuard)
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Get('list')
  async list(@CurrentIdentity() identity: CallerIdentity) {
    return (await this.folders.list(identity)).map(folderView);
  }

  @Get('get/:name')
  async get(@CurrentIdentity() identity: CallerIdentity, @Param('name', folderName) name: string) {
    return folderView(await this.folders.get(identity, name));
  }

  @Post('create')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateFolderBodySchema)) body: z.output<typeof CreateFolderBodySchema>,
  ) {
    return folderView(await this.folders.create(identity, body.name, body));
  }

  @Post('update/:name')
  async update(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('name', folderName) name: string,
    @Body(validateWith(UpdateFolderBodySchema)) body: z.output<typeof UpdateFolderBodySchema>,
  ) {
    return folderView(await this.folders.update(identity, name, body));
  }

  @Delete('delete/:name')
  delete(@CurrentIdentity() identity: CallerIdentity, @Param('name', folderName) name: string) {
    return this.folders.delete(identity, name);
  }
}
