import { ScriptHashSchema, type CallerIdentity } from '@flowmesh/contracts';
import { itemPath, jsonBody, validateWith } from '@flowmesh/http';
import { Body, Controller, Delete, Get, Header, Param, Post, Query, UseGuards } from '@nestjs/common';
import type { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { ReadScriptsUseCase } from './read-scripts.use-case.js';
import { CreateScriptBodySchema, ListScriptsQuerySchema } from './scripts.http.js';
import { WriteScriptsUseCase } from './write-scripts.use-case.js';

const scriptHash = validateWith(ScriptHashSchema, 'script hash');

/** `/api/w/:workspace/scripts/...` as Windmill's REST API: `p/` addresses a path, `h/` a version. */
@Controller('api/w/:workspace/scripts')
@UseGuards(BearerAuthGuard)
export class ScriptsController {
  constructor(
    private readonly read: ReadScriptsUseCase,
    private readonly write: WriteScriptsUseCase,
  ) {}

  @Get('list')
  list(
    @CurrentIdentity() identity: CallerIdentity,
    @Query(validateWith(ListScriptsQuerySchema, 'query')) query: z.output<typeof ListScriptsQuerySchema>,
  ) {
    return this.read.list(identity, query.path_start);
  }

  @Get('get/p/*path')
  get(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return this.read.get(identity, path);
  }

  @Get('get/h/:hash')
  getByHash(@CurrentIdentity() identity: CallerIdentity, @Param('hash', scriptHash) hash: string) {
    return this.read.getByHash(identity, hash);
  }

  @Get('exists/p/*path')
  async exists(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return jsonBody(await this.read.exists(identity, path));
  }

  @Get('history/p/*path')
  history(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    return this.read.listVersions(identity, path);
  }

  /** 201 with the new current hash, whether the path is new or gains a version. */
  @Post('create')
  @Header('content-type', 'text/plain; charset=utf-8')
  async create(
    @CurrentIdentity() identity: CallerIdentity,
    @Body(validateWith(CreateScriptBodySchema)) body: z.output<typeof CreateScriptBodySchema>,
  ) {
    const saved = await this.write.save(identity, body.path, {
      language: body.language,
      content: body.content,
      lock: body.lock,
      schema: body.schema,
      summary: body.summary,
      description: body.description,
      ...(body.parent_hash ? { parentHash: body.parent_hash } : {}),
    });
    return saved.hash;
  }

  @Delete('delete/p/*path')
  @Header('content-type', 'text/plain; charset=utf-8')
  async delete(@CurrentIdentity() identity: CallerIdentity, @Param('path', itemPath) path: string) {
    await this.write.delete(identity, path);
    return path;
  }
}
