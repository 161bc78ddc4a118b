import { type CallerIdentity } from '@flowmesh/contracts';
import { itemPath, validateWith } from '@flowmesh/http';
import { Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { CurrentIdentity } from '../auth/current-identity.decorator.js';
import { ClearResourceVersionsUseCase } from './clear-resource-versions.use-case.js';
import { requireVersionedRoute, splitHistoryRoute } from './history-route.util.js';
import { ResourceHistoryService } from './resource-history.service.js';
import { RestoreResourceVersionUseCase } from './restore-resource-version.use-case.js';

const version = z.coerce.number().int().min(1, 'must be a version number (1 or more)');
const DiffQuerySchema = z.object({ from: version, to: version });

/** `/api/w/:workspace/resources/history...`: a resource's versions, Windmill-style routes. */
@Controller('api/w/:workspace/resources')
@UseGuards(BearerAuthGuard)
export class ResourceHistoryController {
  constructor(
    private readonly history: ResourceHistoryService,
    private readonly restorer: RestoreResourceVersionUseCase,
    private readonly clearer: ClearResourceVersionsUseCase,
  ) {}

  /** A list, newest first; with a trailing `/<version>`, that version with its value. */
  @Get('history/*route')
  listOrShow(@CurrentIdentity() identity: CallerIdentity, @Param('route') route: string[]) {
    const { path, version: wanted } = splitHistoryRoute(route);
    return wanted === undefined
      ? this.history.list(identity, path)
      : this.history.get(identity, path, wanted);
  }

  /** Always a list: for a path whose last segment is a number, which `history/` reads as a version. */
  @Get('history_list/*route')
  list(@CurrentIdentity() identity: CallerIdentity, @Param('route', itemPath) path: string) {
    return this.history.list(identity, path);
  }

  @Get('history_diff/*route')
  diff(
    @CurrentIdentity() identity: CallerIdentity,
    @Param('route', itemPath) path: string,
    @Query(validateWith(DiffQuerySchema, 'query')) query: z.output<typeof DiffQuerySchema>,
  ) {
    return this.history.diff(identity, path, query.from, query.to);
  }

  @Post('history_restore/*route')
  @HttpCode(200)
  restore(@CurrentIdentity() identity: CallerIdentity, @Param('route') route: string[]) {
    const { path, version: restored } = requireVersionedRoute(route);
    return this.restorer.restore(identity, path, restored);
  }

  @Post('history_clear/*route')
  @HttpCode(200)
  clear(@CurrentIdentity() identity: CallerIdentity, @Param('route', itemPath) path: string) {
    return this.clearer.clear(identity, path);
  }
}
