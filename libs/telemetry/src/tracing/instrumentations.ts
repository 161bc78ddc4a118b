import type { IncomingMessage } from 'node:http';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

// Probes and scrapes: no trace per poll.
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Query parameters whose values never reach a span's `url.query` / `url.full`: the
 * instrumentation's own list (signed-URL signatures and credentials), and `token`, which carries
 * a bearer token on the webhook and HTTP-route URLs of senders that cannot set a header.
 */
const REDACTED_QUERY_PARAMS = [
  'sig',
  'Signature',
  'AWSAccessKeyId',
  'X-Goog-Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'token',
];

let processInstrumentations: Instrumentation[] | undefined;

/**
 * Points the process's HTTP and pg instrumentations at these providers and (re-)patches
 * the modules; returns the function that unpatches them. `registerInstrumentations` from
 * the SDK is not used: it never re-enables an instance that was disabled once.
 */
export function enableInstrumentations(providers: {
  tracerProvider: TracerProvider;
  meterProvider?: MeterProvider;
}): () => void {
  const instrumentations = sharedInstrumentations();
  for (const instrumentation of instrumentations) {
    instrumentation.setTracerProvider(providers.tracerProvider);
    if (providers.meterProvider) instrumentation.setMeterProvider(providers.meterProvider);
    instrumentation.enable();
  }
  patchPreloadedBuiltins();
  return () => {
    for (const instrumentation of instrumentations) instrumentation.disable();
  };
}

/**
 * HTTP (server and `node:http` client) and `pg`. Both are patched through require hooks:
 * `pg` is CommonJS (TypeORM loads it with `require`; an ESM `import` of it goes through the
 * CommonJS loader too) and `http` is a builtin, so no ESM loader hook is needed.
 *
 * One set per process: the require hook patches a module once, so a fresh instance made
 * after a shutdown would never see `http` again; re-enabling the same instances re-patches.
 */
function sharedInstrumentations(): Instrumentation[] {
  processInstrumentations ??= createInstrumentations();
  return processInstrumentations;
}

function createInstrumentations(): Instrumentation[] {
  return [
    new HttpInstrumentation({
      // Probes hit every few seconds; a trace each would drown the real ones.
      ignoreIncomingRequestHook: (request: IncomingMessage) => PROBE_PATHS.has(pathOf(request.url)),
      redactedQueryParamsServer: REDACTED_QUERY_PARAMS,
      redactedQueryParams: REDACTED_QUERY_PARAMS,
    }),
    new PgInstrumentation({
      // Pollers (outbox relay, schedulers) query without a parent; one trace per poll is noise.
      requireParentSpan: true,
      // Parameter values may be secrets; the statement text alone is enough to debug.
      enhancedDatabaseReporting: false,
    }),
  ];
}

/**
 * The require hooks patch a module when it is next required, and an ESM app imports
 * `node:http` without `require`: so require the builtins once right after registering,
 * then copy the patched functions into their ESM named exports (`import { request }`),
 * which Node otherwise keeps as they were when first imported.
 */
function patchPreloadedBuiltins(): void {
  const require = createRequire(import.meta.url);
  require('node:http');
  require('node:https');
  syncBuiltinESMExports();
}

function pathOf(url: string | undefined): string {
  if (!url) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
