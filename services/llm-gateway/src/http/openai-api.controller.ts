import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import { DecisionsHttpService } from '../decisions/decisions-http.service.js';
import { WorkspaceProxyService } from '../proxy/workspace-proxy.service.js';
import { ModelsAndEmbeddingsService } from './models-and-embeddings.service.js';

type Request = IncomingMessage & { body?: unknown };

/**
 * OpenAI's API (`/v1/...`) with the provider named in `X-Flowmesh-Provider-Resource`, and the
 * gateway's own `/v1/decisions`. `/v1/chat/completions` is served ahead of Express, by
 * `ChatCompletionsRoute`.
 */
@Controller('v1')
export class OpenAIApiController {
  constructor(
    private readonly modelsAndEmbeddings: ModelsAndEmbeddingsService,
    private readonly decisions: DecisionsHttpService,
  ) {}

  @Post('embeddings')
  embeddings(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    return this.modelsAndEmbeddings.embeddings(req, res);
  }

  /** Decision models (`gateway.decide` over HTTP): typed questions, normalized answers. */
  @Post('decisions')
  decide(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    return this.decisions.handle(req, res);
  }

  @Get('models')
  models(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    return this.modelsAndEmbeddings.models(req, res);
  }
}

const PROXY_PREFIX = '/ai/proxy/';

/** The workspace proxy: a provider's own API, for the resource named in the request. */
@Controller('api/w/:workspace/ai/proxy')
export class WorkspaceProxyController {
  constructor(private readonly proxy: WorkspaceProxyService) {}

  @All('*path')
  forward(
    @Param('workspace') workspace: string,
    @Req() req: Request,
    @Res() res: ServerResponse,
  ): Promise<void> {
    const url = req.url ?? '';
    const path = url.slice(url.indexOf(PROXY_PREFIX) + PROXY_PREFIX.length).split('?')[0] ?? '';
    return this.proxy.handle(req, res, workspace, decodeURIComponent(path));
  }
}
