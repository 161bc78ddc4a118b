import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AI_DECISION_DEFAULT_MODELS,
  AI_DECISION_PROVIDER_KINDS,
  DecideHttpRequestSchema,
  humanIssueMessage,
  MeshError,
  type AiDecisionProviderKind,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { sendJson } from '../http/models-and-embeddings.service.js';
import { ProviderCallerService } from '../http/provider-caller.service.js';
import { sendHttpError } from '../http/send-http-error.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { DecideService } from './decide.service.js';

const DECISION_KINDS: ReadonlySet<string> = new Set(AI_DECISION_PROVIDER_KINDS);

/**
 * `POST /v1/decisions` for direct clients: the bearer token's caller, the provider resource named
 * in `X-Flowmesh-Provider-Resource`, a `DecideHttpRequest` body; answered with the same
 * normalized `DecideReply` as `gateway.decide`, errors in OpenAI's shape like the other routes.
 */
@Injectable()
export class DecisionsHttpService {
  constructor(
    private readonly callers: ProviderCallerService,
    private readonly registry: ProviderRegistry,
    private readonly decisions: DecideService,
  ) {}

  async handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const parsed = DecideHttpRequestSchema.safeParse(req.body, { error: humanIssueMessage });
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => ({
          path: issue.path.join('.') || 'body',
          message: issue.message,
        }));
        throw new MeshError(
          'VALIDATION_FAILED',
          issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
          { param: issues[0].path, issues },
        );
      }
      const resolved = await this.callers.resolve(req.headers);
      if (!DECISION_KINDS.has(resolved.kind))
        throw new MeshError(
          'VALIDATION_FAILED',
          `provider ${resolved.kind} offers no decision models (${AI_DECISION_PROVIDER_KINDS.join(', ')} do)`,
          { param: 'x-flowmesh-provider-resource' },
        );
      const body = parsed.data;
      const reply = await this.decisions.run(
        {
          adapter: this.registry.get(resolved.kind),
          credentials: resolved.credentials,
          identity: resolved.identity,
          workspace: resolved.workspace,
          resource: resolved.resource,
          source: 'http',
          model: body.model ?? AI_DECISION_DEFAULT_MODELS[resolved.kind as AiDecisionProviderKind],
          state: body.state,
          questions: body.questions,
        },
        controller.signal,
      );
      sendJson(res, reply);
    } catch (error) {
      sendHttpError(res, error);
    }
  }
}
