import type { AIProviderKind, CallerIdentity, ChatUsage, FaultClass } from '@flowmesh/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { Context } from '@opentelemetry/api';
import { PRICE_TABLE, type PriceTable } from '../budgets/price-table.js';
import { GenAiTelemetry, type GenAiCallStart, type GenAiSpan } from '../telemetry/gen-ai.telemetry.js';
import { AUDIT_CONFIG, type AuditConfig } from './audit.config.js';
import { LlmCallAuditWriter } from './llm-call-audit.writer.js';

export type LlmCallSource = 'http' | 'proxy' | 'nats';

export interface LlmCallStart extends GenAiCallStart {
  readonly source: LlmCallSource;
  readonly kind: AIProviderKind;
  readonly identity: Pick<CallerIdentity, 'username' | 'kind' | 'jobId'>;
  /** Kept only when audit bodies are on. */
  readonly requestBody?: unknown;
}

export interface LlmCallSuccess {
  readonly usage?: ChatUsage;
  readonly responseModel?: string;
  readonly responseId?: string;
  readonly finishReason?: string;
  readonly httpStatus?: number;
  readonly responseBody?: unknown;
}

export interface LlmCallFailure {
  /** A provider error class, or the gateway's own (`unauthorized`, `outbound_refused`, ...). */
  readonly errorClass: string;
  /** Whose fault (`classifyFault`); absent: `internal`. */
  readonly fault?: FaultClass | undefined;
  readonly httpStatus?: number;
  readonly cancelled?: boolean;
}

/**
 * Everything recorded about one provider call, in one place: the GenAI span and metrics, and
 * the `llm_call_audit` row. Every surface (HTTP, workspace proxy, NATS chat) begins a call here
 * and ends it exactly once with `succeed` or `fail`.
 */
@Injectable()
export class LlmCallRecorder {
  private readonly telemetry: GenAiTelemetry;

  constructor(
    private readonly writer: LlmCallAuditWriter,
    @Inject(AUDIT_CONFIG) private readonly config: AuditConfig,
    @Inject(PRICE_TABLE) prices: PriceTable,
  ) {
    this.telemetry = new GenAiTelemetry(prices);
  }

  begin(start: LlmCallStart, parent?: Context): LlmCall {
    return new LlmCall(this.telemetry.start(start, parent), start, this.writer, this.config.bodies);
  }
}

export class LlmCall {
  private done = false;

  constructor(
    private readonly span: GenAiSpan,
    private readonly start: LlmCallStart,
    private readonly writer: LlmCallAuditWriter,
    private readonly keepBodies: boolean,
  ) {}

  /** The span's context: run the provider request inside it so its HTTP spans are children. */
  get context(): Context {
    return this.span.context;
  }

  markFirstChunk(): void {
    this.span.markFirstChunk();
  }

  succeed(outcome: LlmCallSuccess = {}): void {
    if (this.done) return;
    this.done = true;
    this.span.end(outcome);
    this.write(
      'ok',
      outcome.httpStatus,
      undefined,
      outcome.usage,
      outcome.responseModel,
      outcome.responseBody,
    );
  }

  fail(failure: LlmCallFailure): void {
    if (this.done) return;
    this.done = true;
    this.span.end({ errorType: failure.errorClass, fault: failure.fault ?? 'internal' });
    this.write(failure.cancelled ? 'cancelled' : 'error', failure.httpStatus, failure.errorClass);
  }

  private write(
    status: string,
    httpStatus: number | undefined,
    errorClass: string | undefined,
    usage?: ChatUsage,
    responseModel?: string,
    responseBody?: unknown,
  ): void {
    const { start } = this;
    const firstChunk = this.span.timeToFirstChunkMs;
    this.writer.add({
      workspace: start.workspace,
      identity: start.identity.username,
      identityKind: start.identity.kind,
      jobId: start.identity.jobId ?? null,
      source: start.source,
      operation: start.operation,
      resource: start.resource,
      provider: start.kind,
      model: start.model,
      responseModel: responseModel ?? null,
      stream: start.stream,
      inputTokens: usage?.inputTokens ?? null,
      outputTokens: usage?.outputTokens ?? null,
      cacheReadTokens: usage?.cacheReadTokens ?? null,
      cacheWriteTokens: usage?.cacheWriteTokens ?? null,
      reasoningTokens: usage?.reasoningTokens ?? null,
      status,
      httpStatus: httpStatus ?? null,
      errorClass: errorClass ?? null,
      latencyMs: Math.round(this.span.elapsedMs()),
      timeToFirstChunkMs: firstChunk === undefined ? null : Math.round(firstChunk),
      requestBody: this.keepBodies ? asJsonb(start.requestBody) : null,
      responseBody: this.keepBodies ? asJsonb(responseBody) : null,
    });
  }
}

/** A body as a jsonb column takes it: objects as they are, text wrapped, nothing as null. */
function asJsonb(body: unknown): object | null {
  if (body === undefined || body === null) return null;
  return typeof body === 'object' ? body : { text: typeof body === 'string' ? body : JSON.stringify(body) };
}
