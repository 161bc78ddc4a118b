import type { FaultClass } from '@flowmesh/contracts';
import {
  ATTR_ERROR_TYPE,
  ATTR_FLOWMESH_FAULT,
  ATTR_FLOWMESH_WORKSPACE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  DURATION_BUCKETS_S,
  GEN_AI_OPERATION,
  genAiProviderName,
  getMeter,
  METRIC_GEN_AI_EXECUTE_TOOL_DURATION,
  METRIC_GEN_AI_INVOKE_AGENT_DURATION,
} from '@flowmesh/telemetry';
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Histogram,
  type Span,
} from '@opentelemetry/api';

const TRACER_NAME = 'flowmesh.agent-runtime';

/** What is known of an agent run when it starts; nothing here is content or a credential. */
export interface AgentRunStart {
  /** The step's id, or the linked agent's path. */
  readonly agentName: string;
  /** The step's job. */
  readonly agentId: string;
  readonly providerKind: string;
  readonly model: string;
  readonly workspace: string;
  /** The memory the run reads and writes, when it has one. */
  readonly conversationId?: string;
}

/** How a run or a tool call ended: its tokens, and on failure the error's class or name. */
export interface TelemetryOutcome {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly errorType?: string;
  /** On failure: whose fault (`flowmesh.fault` on the span). */
  readonly fault?: FaultClass;
}

/**
 * The agent's spans and metrics per the GenAI conventions: an INTERNAL `invoke_agent {name}`
 * span around a run (the gateway's `chat` spans and the tools' spans are its children, as trace
 * context rides on NATS), an `execute_tool {tool}` span around each tool call, and the
 * `gen_ai.invoke_agent.duration` and `gen_ai.execute_tool.duration` histograms. No attribute holds
 * a message, an argument or a result.
 */
export class AgentTelemetry {
  private readonly tracer = trace.getTracer(TRACER_NAME);
  private readonly agentDuration: Histogram;
  private readonly toolDuration: Histogram;

  constructor() {
    const meter = getMeter(TRACER_NAME);
    const histogram = (name: string, description: string) =>
      meter.createHistogram(name, {
        unit: 's',
        description,
        advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
      });
    this.agentDuration = histogram(METRIC_GEN_AI_INVOKE_AGENT_DURATION, 'Duration of an agent run');
    this.toolDuration = histogram(METRIC_GEN_AI_EXECUTE_TOOL_DURATION, 'Duration of a tool call of an agent');
  }

  /** Runs `run` inside the agent's span; `outcome` reads how it ended. */
  invokeAgent<T>(
    start: AgentRunStart,
    run: () => Promise<T>,
    outcome: (result: T) => TelemetryOutcome,
  ): Promise<T> {
    const base: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.invokeAgent,
      [ATTR_GEN_AI_PROVIDER_NAME]: genAiProviderName(start.providerKind),
      [ATTR_GEN_AI_REQUEST_MODEL]: start.model,
    };
    const attributes: Attributes = {
      ...base,
      [ATTR_GEN_AI_AGENT_NAME]: start.agentName,
      [ATTR_GEN_AI_AGENT_ID]: start.agentId,
      [ATTR_FLOWMESH_WORKSPACE]: start.workspace,
      ...(start.conversationId ? { [ATTR_GEN_AI_CONVERSATION_ID]: start.conversationId } : {}),
    };
    return this.measured(
      `${GEN_AI_OPERATION.invokeAgent} ${start.agentName}`,
      attributes,
      base,
      this.agentDuration,
      run,
      outcome,
    );
  }

  /** Runs one tool call inside its span. */
  executeTool<T>(
    call: { readonly name: string; readonly callId: string; readonly type: 'function' | 'extension' },
    run: () => Promise<T>,
    outcome: (result: T) => TelemetryOutcome,
  ): Promise<T> {
    const base: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION.executeTool,
      [ATTR_GEN_AI_TOOL_NAME]: call.name,
    };
    const attributes: Attributes = {
      ...base,
      [ATTR_GEN_AI_TOOL_CALL_ID]: call.callId,
      [ATTR_GEN_AI_TOOL_TYPE]: call.type,
    };
    return this.measured(
      `${GEN_AI_OPERATION.executeTool} ${call.name}`,
      attributes,
      base,
      this.toolDuration,
      run,
      outcome,
    );
  }

  private measured<T>(
    name: string,
    attributes: Attributes,
    metricAttributes: Attributes,
    duration: Histogram,
    run: () => Promise<T>,
    outcome: (result: T) => TelemetryOutcome,
  ): Promise<T> {
    return this.tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
      const started = performance.now();
      let ended: TelemetryOutcome = {};
      try {
        const result = await run();
        ended = outcome(result);
        return result;
      } catch (error) {
        ended = { errorType: error instanceof Error ? error.name : '_OTHER' };
        throw error;
      } finally {
        finish(span, ended);
        duration.record(
          (performance.now() - started) / 1000,
          ended.errorType ? { ...metricAttributes, [ATTR_ERROR_TYPE]: ended.errorType } : metricAttributes,
        );
      }
    });
  }
}

function finish(span: Span, outcome: TelemetryOutcome): void {
  if (outcome.inputTokens !== undefined)
    span.setAttribute(ATTR_GEN_AI_USAGE_INPUT_TOKENS, outcome.inputTokens);
  if (outcome.outputTokens !== undefined)
    span.setAttribute(ATTR_GEN_AI_USAGE_OUTPUT_TOKENS, outcome.outputTokens);
  if (outcome.errorType) {
    span.setAttribute(ATTR_ERROR_TYPE, outcome.errorType);
    if (outcome.fault) span.setAttribute(ATTR_FLOWMESH_FAULT, outcome.fault);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorType });
  }
  span.end();
}
