import type { ChatUsage, FaultClass } from '@flowmesh/contracts';
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Histogram,
  type Span,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_FLOWMESH_FAULT,
  ATTR_FLOWMESH_PROVIDER_RESOURCE,
  ATTR_FLOWMESH_WORKSPACE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOKEN_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DURATION_BUCKETS_S,
  GEN_AI_TOKEN_TYPE,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  TOKEN_USAGE_BUCKETS,
  getMeter,
  type GenAiOperation,
} from '@flowmesh/telemetry';
import { PriceTable } from '../budgets/price-table.js';
import { recordCallEnd, recordTokenUsage } from './gateway.metrics.js';

/** What is known about a provider call when it starts: nothing here is a credential or content. */
export interface GenAiCallStart {
  readonly operation: GenAiOperation;
  /** `gen_ai.provider.name` (the adapter's `telemetryName`). */
  readonly providerName: string;
  /** The provider kind (`openai`, `azure_openai`, ...): prices may be set per kind. */
  readonly kind?: string;
  readonly model: string;
  readonly stream: boolean;
  readonly workspace: string;
  readonly resource: string;
  readonly serverAddress?: string;
  readonly serverPort?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly conversationId?: string;
}

export interface GenAiCallOutcome {
  readonly usage?: ChatUsage;
  readonly responseModel?: string;
  readonly responseId?: string;
  readonly finishReason?: string;
  /** Set on failure: the provider error class (`rate_limited`, ...) or `_OTHER`. */
  readonly errorType?: string;
  /** Set on failure: whose fault it is (`flowmesh.fault` on the span, `fault` on the failure counter). */
  readonly fault?: FaultClass;
}

const TRACER_NAME = 'flowmesh.llm-gateway';

/**
 * Spans and metrics of provider calls per the GenAI semantic conventions: one CLIENT span per
 * logical call (`chat gpt-4o-mini`, retries and fallbacks inside it), the required duration
 * histogram, token usage per token type, time to first chunk for streams. Attributes that drive
 * sampling are set at start. No attribute holds a credential, a header or message content.
 */
export class GenAiTelemetry {
  private readonly tracer = trace.getTracer(TRACER_NAME);
  private readonly duration: Histogram;
  private readonly tokens: Histogram;
  private readonly firstChunk: Histogram;

  constructor(private readonly prices: PriceTable = new PriceTable()) {
    const meter = getMeter(TRACER_NAME);
    this.duration = meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'GenAI operation duration',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    this.tokens = meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      unit: '{token}',
      description: 'Number of input and output tokens used',
      advice: { explicitBucketBoundaries: TOKEN_USAGE_BUCKETS },
    });
    this.firstChunk = meter.createHistogram(METRIC_GEN_AI_CLIENT_TIME_TO_FIRST_CHUNK, {
      unit: 's',
      description: 'Time to receive the first chunk of a streamed answer',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
  }

  start(call: GenAiCallStart, parent: Context = context.active()): GenAiSpan {
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: call.operation,
      [ATTR_GEN_AI_PROVIDER_NAME]: call.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: call.model,
      [ATTR_FLOWMESH_WORKSPACE]: call.workspace,
      [ATTR_FLOWMESH_PROVIDER_RESOURCE]: call.resource,
    };
    if (call.stream) attributes[ATTR_GEN_AI_REQUEST_STREAM] = true;
    if (call.serverAddress) attributes[ATTR_SERVER_ADDRESS] = call.serverAddress;
    if (call.serverPort) attributes[ATTR_SERVER_PORT] = call.serverPort;
    if (call.maxTokens !== undefined) attributes[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = call.maxTokens;
    if (call.temperature !== undefined) attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = call.temperature;
    if (call.topP !== undefined) attributes[ATTR_GEN_AI_REQUEST_TOP_P] = call.topP;
    if (call.conversationId) attributes[ATTR_GEN_AI_CONVERSATION_ID] = call.conversationId;
    const span = this.tracer.startSpan(
      `${call.operation} ${call.model}`,
      { kind: SpanKind.CLIENT, attributes },
      parent,
    );
    return new GenAiSpan(this, span, call, parent);
  }

  /** @internal Records the metrics of a finished call. */
  record(call: GenAiCallStart, outcome: GenAiCallOutcome, seconds: number, firstChunkSeconds?: number): void {
    const base: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: call.operation,
      [ATTR_GEN_AI_PROVIDER_NAME]: call.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: call.model,
    };
    if (call.serverAddress) base[ATTR_SERVER_ADDRESS] = call.serverAddress;
    if (outcome.responseModel) base[ATTR_GEN_AI_RESPONSE_MODEL] = outcome.responseModel;
    this.duration.record(
      seconds,
      outcome.errorType ? { ...base, [ATTR_ERROR_TYPE]: outcome.errorType } : base,
    );
    if (firstChunkSeconds !== undefined) this.firstChunk.record(firstChunkSeconds, base);
    recordCallEnd(
      call.providerName,
      outcome.errorType ? { errorClass: outcome.errorType, fault: outcome.fault ?? 'internal' } : undefined,
    );
    // The conventions say not to report counts the provider did not give.
    if (outcome.usage) {
      recordTokenUsage(
        call.providerName,
        call.model,
        outcome.usage,
        this.prices.costUsd(call.kind, call.model, outcome.usage),
      );
      this.tokens.record(outcome.usage.inputTokens, {
        ...base,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE.input,
      });
      this.tokens.record(outcome.usage.outputTokens, {
        ...base,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE.output,
      });
    }
  }
}

/** One call's span; `context` makes the attempts' HTTP spans its children. */
export class GenAiSpan {
  private readonly startedAt = performance.now();
  private firstChunkAt?: number;
  private ended = false;
  private spanContext?: Context;

  constructor(
    private readonly telemetry: GenAiTelemetry,
    readonly span: Span,
    private readonly call: GenAiCallStart,
    private readonly parent: Context,
  ) {}

  /** The parent context with this span in it (made on first use: the pass-through path never needs it). */
  get context(): Context {
    this.spanContext ??= trace.setSpan(this.parent, this.span);
    return this.spanContext;
  }

  /** Milliseconds since the call started. */
  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  get timeToFirstChunkMs(): number | undefined {
    return this.firstChunkAt === undefined ? undefined : this.firstChunkAt - this.startedAt;
  }

  /** The first chunk of a stream arrived (later calls are ignored). */
  markFirstChunk(): void {
    this.firstChunkAt ??= performance.now();
  }

  end(outcome: GenAiCallOutcome): void {
    if (this.ended) return;
    this.ended = true;
    const seconds = this.elapsedMs() / 1000;
    const firstChunkSeconds =
      this.timeToFirstChunkMs === undefined ? undefined : this.timeToFirstChunkMs / 1000;
    const attributes: Attributes = {};
    if (outcome.responseModel) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = outcome.responseModel;
    if (outcome.responseId) attributes[ATTR_GEN_AI_RESPONSE_ID] = outcome.responseId;
    if (outcome.finishReason) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [outcome.finishReason];
    if (firstChunkSeconds !== undefined)
      attributes[ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK] = firstChunkSeconds;
    const usage = outcome.usage;
    if (usage) {
      attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = usage.inputTokens;
      attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = usage.outputTokens;
      attributes[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheReadTokens;
      attributes[ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheWriteTokens;
      attributes[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
    }
    if (outcome.errorType) {
      attributes[ATTR_ERROR_TYPE] = outcome.errorType;
      if (outcome.fault) attributes[ATTR_FLOWMESH_FAULT] = outcome.fault;
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.setAttributes(attributes);
    this.span.end();
    this.telemetry.record(this.call, outcome, seconds, firstChunkSeconds);
  }
}
