import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  type Actor,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
// The registry runs in this process (its published test entry point): the gateway's tests need
// real permissions and real change events, and a build of the registry would slow every run.
// eslint-disable-next-line no-restricted-imports
import { resourceRegistryDefinition } from '@flowmesh/resource-registry/definition';
import { startTestService, type TestService } from '@flowmesh/testing';
import { llmGatewayDefinition } from '../../src/llm-gateway.definition.js';

export const WORKSPACE = 'main';
/** Folder holding the provider resources: `reader` may read it, `stranger` may not. */
export const FOLDER = 'ai';

/** Every JSON log line a service writes, kept for a test to grep. */
export class CapturedLog extends Writable {
  readonly lines: string[] = [];

  override _write(
    chunk: Buffer | string,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    this.lines.push(...String(chunk).split('\n').filter(Boolean));
    done();
  }

  get text(): string {
    return this.lines.join('\n');
  }
}

export interface GatewayCast {
  readonly registry: TestService;
  readonly gateway: TestService;
  /** The gateway's log lines (at trace level when `captureLogs` was asked for). */
  readonly gatewayLog: CapturedLog;
  readonly registryLog: CapturedLog;
  readonly admin: Actor;
  readonly reader: Actor;
  readonly stranger: Actor;
  readonly items: RegistryItemsClient;
  readonly identity: RegistryIdentityClient;
  /** Creates (or replaces) a provider resource whose key is a secret variable beside it. */
  providerResource(
    path: string,
    type: string,
    value: Record<string, unknown>,
    secretKey?: string,
  ): Promise<void>;
  /** Headers the gateway's HTTP API wants for `resource`. */
  headers(resource: string): Record<string, string>;
  stop(): Promise<void>;
}

export interface GatewayCastOptions {
  readonly gatewayEnv?: Record<string, string>;
  /** Run both services at trace level with their logs captured (the no-secret-in-logs test). */
  readonly captureLogs?: boolean;
}

/**
 * A registry and a gateway on one subject prefix, in this process: workspace `main` with an
 * admin, a `reader` of folder `f/ai` and a `stranger` who may read nothing there.
 */
export async function startGatewayCast(options: GatewayCastOptions = {}): Promise<GatewayCast> {
  const adminToken = `fm_test_${randomBytes(24).toString('base64url')}`;
  const registryLog = new CapturedLog();
  const gatewayLog = new CapturedLog();
  const level = options.captureLogs ? { LOG_LEVEL: 'trace' } : {};
  const registry = await startTestService(resourceRegistryDefinition, {
    env: { FLOWMESH_ADMIN_TOKEN: adminToken, FLOWMESH_ADMIN_EMAIL: 'admin@example.test', ...level },
    ...(options.captureLogs ? { logDestination: registryLog } : {}),
  });
  let gateway: TestService | undefined;
  try {
    const identity = createRegistryIdentityClient(registry.client);
    const items = createRegistryItemsClient(registry.client);
    const admin = { token: adminToken };
    const inMain = { actor: admin, workspace: WORKSPACE };
    const tokenOf = async (username: string): Promise<Actor> => {
      await identity.addUser({ ...inMain, email: `${username}@example.test`, username, isAdmin: false });
      return { token: (await identity.createApiToken({ ...inMain, username, label: 'gateway-test' })).token };
    };
    const [reader, stranger] = await Promise.all([tokenOf('reader'), tokenOf('stranger')]);
    await identity.createFolder({ ...inMain, name: FOLDER, readers: ['u/reader'] });

    gateway = await startTestService(llmGatewayDefinition, {
      env: {
        FLOWMESH_SUBJECT_PREFIX: registry.config.subjectPrefix,
        // The fakes listen on 127.0.0.1; only tests that show the refusal leave this out.
        FLOWMESH_OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
        ...level,
        ...options.gatewayEnv,
      },
      ...(options.captureLogs ? { logDestination: gatewayLog } : {}),
    });
    const started = gateway;

    const providerResource = async (
      path: string,
      type: string,
      value: Record<string, unknown>,
      secretKey?: string,
    ) => {
      let stored = value;
      if (secretKey !== undefined) {
        const variable = `${path}_key`;
        const exists = (await items.variableExists({ ...inMain, path: variable })).exists;
        if (exists) await items.updateVariable({ ...inMain, path: variable, value: secretKey });
        else await items.createVariable({ ...inMain, path: variable, value: secretKey, is_secret: true });
        stored = { ...value, api_key: `$var:${variable}` };
      }
      if ((await items.resourceExists({ ...inMain, path })).exists)
        await items.updateResourceValue({ ...inMain, path, value: stored });
      else await items.createResource({ ...inMain, path, resource_type: type, value: stored });
    };

    return {
      registry,
      gateway: started,
      gatewayLog,
      registryLog,
      admin,
      reader,
      stranger,
      items,
      identity,
      providerResource,
      headers: (resource) => ({
        'x-flowmesh-provider-resource': resource,
        'x-flowmesh-workspace': WORKSPACE,
      }),
      stop: async () => {
        await started.stop();
        await registry.stop();
      },
    };
  } catch (error) {
    await gateway?.stop().catch(() => undefined);
    await registry.stop().catch(() => undefined);
    throw error;
  }
}

/**
 * The two Bedrock provider resources the tests use, on the fake at `baseUrl` (eu-west-1):
 * `f/ai/bedrock_bearer` with an API key (and a header of its own, `x-resource: r1`) and
 * `f/ai/bedrock_keys` with an AWS access key pair.
 */
export async function bedrockResources(
  cast: GatewayCast,
  baseUrl: string,
  keys: { readonly bearerToken: string; readonly accessKeyId: string; readonly secretAccessKey: string },
): Promise<void> {
  await cast.providerResource(
    'f/ai/bedrock_bearer',
    'aws_bedrock',
    { region: 'eu-west-1', base_url: baseUrl, custom_headers: { 'x-resource': 'r1' } },
    keys.bearerToken,
  );
  await cast.providerResource('f/ai/bedrock_keys', 'aws_bedrock', {
    region: 'eu-west-1',
    base_url: baseUrl,
    aws_access_key_id: keys.accessKeyId,
    aws_secret_access_key: keys.secretAccessKey,
  });
}
