import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { BedrockClient, BedrockClientConfig } from '@aws-sdk/client-bedrock';
import type { BedrockRuntimeClient, BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { MeshError } from '@flowmesh/contracts';
import { createGuardedLookup, type OutboundPolicy } from '@flowmesh/outbound';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { NativeCallContext } from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';

const DEFAULT_REGION = 'us-east-1';

interface Agents {
  readonly http: http.Agent;
  readonly https: https.Agent;
}

/** One keep-alive pool per outbound policy, shared by every Bedrock client of the process. */
const agentsByPolicy = new WeakMap<OutboundPolicy, Agents>();
const unguardedAgents: Agents = {
  http: new http.Agent({ keepAlive: true }),
  https: new https.Agent({ keepAlive: true }),
};

function agentsFor(policy: OutboundPolicy | undefined): Agents {
  if (!policy) return unguardedAgents;
  let agents = agentsByPolicy.get(policy);
  if (!agents) {
    // Every name the SDK connects to is resolved and checked here, and the socket gets exactly the checked address.
    const lookup = createGuardedLookup(policy);
    agents = {
      http: new http.Agent({ keepAlive: true, lookup }),
      https: new https.Agent({ keepAlive: true, lookup }),
    };
    agentsByPolicy.set(policy, agents);
  }
  return agents;
}

/** Clients live as long as the (cached, sealed) credentials they were made for. */
interface CachedClient<C> {
  readonly context: NativeCallContext | undefined;
  readonly client: C;
}
const runtimeClients = new WeakMap<ProviderCredentials, CachedClient<BedrockRuntimeClient>>();
const controlClients = new WeakMap<ProviderCredentials, CachedClient<BedrockClient>>();

/**
 * The SDK client for one Bedrock resource: HTTP/1.1 through `NodeHttpHandler` (the SDK's HTTP/2
 * default fails against HTTP/1.1 endpoints such as VPC proxies and our fake with a bare
 * "Protocol error"), the resource's own credentials only (never the process's default AWS chain:
 * the gateway's own role must not answer for a user's resource), one attempt (the gateway retries),
 * and the configured and resource headers added before the request is signed.
 */
export async function bedrockClient(
  credentials: ProviderCredentials,
  context?: NativeCallContext,
): Promise<BedrockRuntimeClient> {
  const cached = runtimeClients.get(credentials);
  if (cached && cached.context === context) return cached.client;
  // The SDK loads on the first Bedrock call: about 27 MiB resident a gateway without a Bedrock
  // resource never needs (bench/gateway holds the gateway under 200 MiB at load).
  const { BedrockRuntimeClient } = await import('@aws-sdk/client-bedrock-runtime');
  const client = new BedrockRuntimeClient(clientConfig(credentials, context));
  addHeaders(client, credentials, context);
  runtimeClients.set(credentials, { context, client });
  return client;
}

/**
 * The control-plane client (`ListFoundationModels`) for the same resource, made exactly as the
 * runtime one: same credentials, region, endpoint override, HTTP/1.1 handler, guarded agents and
 * headers. Loaded only when a model list is asked for.
 */
export async function bedrockControlClient(
  credentials: ProviderCredentials,
  context?: NativeCallContext,
): Promise<BedrockClient> {
  const cached = controlClients.get(credentials);
  if (cached && cached.context === context) return cached.client;
  const { BedrockClient } = await import('@aws-sdk/client-bedrock');
  const client = new BedrockClient(clientConfig(credentials, context));
  addHeaders(client, credentials, context);
  controlClients.set(credentials, { context, client });
  return client;
}

function clientConfig(
  credentials: ProviderCredentials,
  context: NativeCallContext | undefined,
): BedrockRuntimeClientConfig & BedrockClientConfig {
  const endpoint = credentials.base_url;
  if (endpoint && context?.outboundPolicy) assertLiteralAddressAllowed(endpoint, context.outboundPolicy);
  const agents = agentsFor(context?.outboundPolicy);
  return {
    region: credentials.region ?? DEFAULT_REGION,
    ...(endpoint ? { endpoint } : {}),
    ...authConfig(credentials),
    requestHandler: new NodeHttpHandler({
      httpAgent: agents.http,
      httpsAgent: agents.https,
      connectionTimeout: 10_000,
      requestTimeout: 300_000,
    }),
    maxAttempts: 1,
  };
}

/** Configured then resource headers, added at the build step (before signing). */
function addHeaders(
  client: BedrockRuntimeClient | BedrockClient,
  credentials: ProviderCredentials,
  context: NativeCallContext | undefined,
): void {
  const headers = { ...context?.headers, ...credentials.custom_headers };
  if (Object.keys(headers).length === 0) return;
  (client as BedrockRuntimeClient).middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) Object.assign(request.headers, headers);
      return next(args);
    },
    { step: 'build', name: 'flowmeshCustomHeaders' },
  );
}

type AuthConfig =
  | { credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } }
  | { token: { token: string }; authSchemePreference: string[]; credentials: () => Promise<never> };

function authConfig(credentials: ProviderCredentials): AuthConfig {
  if (credentials.aws_access_key_id && credentials.aws_secret_access_key) {
    return {
      credentials: {
        accessKeyId: credentials.aws_access_key_id,
        secretAccessKey: credentials.aws_secret_access_key,
        ...(credentials.aws_session_token ? { sessionToken: credentials.aws_session_token } : {}),
      },
    };
  }
  if (credentials.api_key) {
    return {
      token: { token: credentials.api_key },
      authSchemePreference: ['httpBearerAuth'],
      // Never the default chain (environment, instance role): a bearer resource signs with nothing else.
      credentials: () =>
        Promise.reject(new Error('this Bedrock resource authenticates with its API key only')),
    };
  }
  throw new MeshError(
    'VALIDATION_FAILED',
    'the aws_bedrock provider resource needs an api_key, or aws_access_key_id with aws_secret_access_key',
    { fields: ['api_key', 'aws_access_key_id', 'aws_secret_access_key'] },
  );
}

/** An endpoint given as an IP literal is never looked up, so the policy judges it here (names: the guarded lookup). */
function assertLiteralAddressAllowed(endpoint: string, policy: OutboundPolicy): void {
  let host: string;
  try {
    host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new MeshError(
      'VALIDATION_FAILED',
      'the aws_bedrock provider resource has a base_url that is not a URL',
      { fields: ['base_url'] },
    );
  }
  if (isIP(host)) policy.assertAddress(host, host);
}
