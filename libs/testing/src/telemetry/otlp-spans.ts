import type { ReceivedExport } from './fake-otlp-collector.js';

/** A span as OTLP/HTTP JSON carries it, with its process's `service.name`. */
export interface ExportedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
}

/** Every span the processes exported over OTLP/HTTP JSON (`/v1/traces` posts). */
export function exportedSpans(received: readonly ReceivedExport[]): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const post of received) {
    if (!post.path.endsWith('/v1/traces')) continue;
    const body = JSON.parse(post.body) as OtlpTraces;
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
  return spans;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const scalar = value.stringValue ?? value.boolValue ?? value.doubleValue ?? value.intValue;
    if (scalar !== undefined)
      attributes[key] = typeof scalar === 'string' && value.intValue !== undefined ? Number(scalar) : scalar;
  }
  return attributes;
}
