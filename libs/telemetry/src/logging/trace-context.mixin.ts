import { context, isSpanContextValid, trace } from '@opentelemetry/api';

export interface TraceContextFields {
  trace_id?: string;
  span_id?: string;
}

/** The active span's ids, so a log line joins its trace in the backend. */
export function traceContextFields(): TraceContextFields {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
