import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { LlmCallRecorder } from '../audit/llm-call.recorder.js';
import { KeyOwnership } from '../credentials/key-ownership.js';
import { ProviderExecutor } from '../providers/provider-executor.js';
import { ProviderRegistry } from '../providers/provider-registry.js';
import { invalid } from './openai-chat-request.mapper.js';
import { OpenAIEmbeddingsRequestSchema } from './openai-chat-request.schema.js';
import { toHttpError } from './openai-error.mapper.js';
import { ProviderCallerService } from './provider-caller.service.js';
import { sendHttpError } from './send-http-error.js';

/**
 * `GET /v1/models` and `POST /v1/embeddings` in OpenAI's shapes, from any provider. A provider's
 * refusal says whose fault it is (`error.fault`), as a chat's does.
 */
@Injectable()
export class ModelsAndEmbeddingsService {
  constructor(
    private readonly callers: ProviderCallerService,
    private readonly registry: ProviderRegistry,
    private readonly executor: ProviderExecutor,
    private readonly recorder: LlmCallRecorder,
    private readonly keys: KeyOwnership,
  ) {}

  async models(req: IncomingMessage, res: ServerResponse, route: { workspace?: string } = {}): Promise<void> {
    const controller = new AbortController();
    res.once('close', () => controller.abort());
    try {
      const resolved = await this.callers.resolve(req.headers, route);
      const models = await this.executor
        .listModels(this.registry.get(resolved.kind), resolved.credentials, controller.signal)
        .catch((error: unknown) => {
          throw this.keys.attributeCaught(error, resolved.resource);
        });
      sendJson(res, {
        object: 'list',
        data: models.map((model) => ({
          id: model.id,
          object: 'model',
          created: 0,
          owned_by: model.ownedBy ?? resolved.kind,
        })),
      });
    } catch (error) {
      sendHttpError(res, error);
    }
  }

  async embeddings(
    req: IncomingMessage & { body?: unknown },
    res: ServerResponse,
    route: { workspace?: string } = {},
  ): Promise<void> {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      const resolved = await this.callers.resolve(req.headers, route);
      const parsed = OpenAIEmbeddingsRequestSchema.safeParse(req.body);
      if (!parsed.success)
        throw invalid(
          parsed.error.issues[0]?.path.join('.') || 'body',
          parsed.error.issues[0]?.message ?? 'is invalid',
        );
      const body = parsed.data;
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      const adapter = this.registry.get(resolved.kind);
      const call = this.recorder.begin({
        operation: 'embeddings',
        source: 'http',
        kind: resolved.kind,
        providerName: adapter.telemetryName(resolved.credentials),
        model: body.model,
        stream: false,
        workspace: resolved.workspace,
        resource: resolved.resource,
        identity: resolved.identity,
      });
      try {
        const result = await this.executor.embed(
          adapter,
          {
            model: body.model,
            input,
            ...(body.dimensions !== undefined ? { dimensions: body.dimensions } : {}),
            ...(body.input_type !== undefined ? { inputType: body.input_type } : {}),
          },
          resolved.credentials,
          controller.signal,
        );
        const usage = {
          inputTokens: result.inputTokens,
          outputTokens: 0,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
        };
        call.succeed({ usage, responseModel: result.model, httpStatus: 200 });
        sendJson(res, {
          object: 'list',
          data: result.embeddings.map((vector, index) => ({
            object: 'embedding',
            index,
            embedding:
              body.encoding_format === 'base64'
                ? Buffer.from(new Float32Array(vector).buffer).toString('base64')
                : vector,
          })),
          model: result.model,
          usage: { prompt_tokens: result.inputTokens, total_tokens: result.inputTokens },
        });
      } catch (caught) {
        const error = this.keys.attributeCaught(caught, resolved.resource);
        const failure = toHttpError(error);
        call.fail({
          errorClass: failure.errorClass,
          fault: failure.fault,
          httpStatus: failure.status,
          cancelled: controller.signal.aborted,
        });
        throw error;
      }
    } catch (error) {
      sendHttpError(res, error);
    }
  }
}

export function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}
