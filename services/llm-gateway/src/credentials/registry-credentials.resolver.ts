import {
  AI_PROVIDER_KINDS,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  MeshError,
  type AIProviderKind,
  type CallerIdentity,
  type InlineProviderResource,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Inject, Injectable } from '@nestjs/common';
import {
  credentialsFromResourceValue,
  inlineResourceValue,
  type ProviderCredentials,
} from '../providers/provider-credentials.js';
import { CredentialsCache } from './credentials.cache.js';
import { CREDENTIALS_CONFIG, type CredentialsConfig } from './credentials.config.js';
import { CredentialsResolver, type CredentialsQuery } from './credentials-resolver.js';

/** A provider resource resolved for one caller: its credentials and who the caller is. */
export interface ResolvedProvider {
  readonly kind: AIProviderKind;
  readonly credentials: ProviderCredentials;
  /** For audit rows and spans: the caller as the registry knows it. */
  readonly identity: CallerIdentity;
}

const PROVIDER_KINDS: ReadonlySet<string> = new Set(AI_PROVIDER_KINDS);

/**
 * Credentials read from the registry as the caller, so the registry decides what the caller
 * may read and resolves `$var:` secrets itself: the caller's token authenticates, the resource
 * (its type) and its interpolated value are fetched in one request (`registry.resource.resolve`),
 * and the result is cached (see `CredentialsCache`). An unreadable resource is
 * NOT_FOUND, exactly as a missing one. Nothing here logs: the value is a credential.
 */
@Injectable()
export class RegistryCredentialsResolver extends CredentialsResolver {
  readonly cache: CredentialsCache<ResolvedProvider>;
  private readonly identityClient: RegistryIdentityClient;
  private readonly items: RegistryItemsClient;

  constructor(mesh: MeshClient, @Inject(CREDENTIALS_CONFIG) config: CredentialsConfig) {
    super();
    this.identityClient = createRegistryIdentityClient(mesh);
    this.items = createRegistryItemsClient(mesh);
    this.cache = new CredentialsCache<ResolvedProvider>({
      ttlMs: config.cacheTtlMs,
      maxEntries: config.cacheMaxEntries,
      // A decision made from a token never outlives the token (a job token expires in minutes).
      validUntil: ({ identity }) =>
        identity.tokenExpiresAt ? Date.parse(identity.tokenExpiresAt) : undefined,
    });
  }

  async resolve(query: CredentialsQuery): Promise<ProviderCredentials> {
    return (await this.resolveProvider(query)).credentials;
  }

  /** Credentials and caller identity; `kind` (when given) must be the resource's own type. */
  async resolveProvider(query: CredentialsQuery): Promise<ResolvedProvider> {
    const { resource } = query;
    if (typeof resource !== 'string') return this.inline(query, resource);
    const resolved = await this.cache.get(query.workspace, resource, query.actor.token, () =>
      this.fetch({ ...query, resource }),
    );
    if (query.kind !== undefined && query.kind !== resolved.kind) {
      throw new MeshError(
        'VALIDATION_FAILED',
        `the resource ${resource} holds ${resolved.kind} credentials, not ${query.kind}`,
        { resource, kind: resolved.kind },
      );
    }
    return resolved;
  }

  /**
   * A provider resource given inline: its `$var:`/`$res:` references read as the caller (who must
   * be allowed to read each), then checked as a value of the kind's resource type. Not cached: the
   * fields come with every request.
   */
  private async inline(query: CredentialsQuery, resource: InlineProviderResource): Promise<ResolvedProvider> {
    const kind = query.kind;
    if (kind === undefined)
      throw new MeshError('VALIDATION_FAILED', 'an inline provider resource needs the provider kind', {
        resource: 'inline',
      });
    const caller = { actor: query.actor, workspace: query.workspace };
    const [identity, interpolated] = await Promise.all([
      this.identityClient.authenticate({ token: query.actor.token, workspace: query.workspace }),
      this.items.interpolate({ ...caller, value: resource }),
    ]);
    const value = interpolated.value;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new MeshError('VALIDATION_FAILED', 'an inline provider resource must be an object', {
        resource: 'inline',
      });
    const credentials = credentialsFromResourceValue(
      kind,
      inlineResourceValue(kind, value as Record<string, unknown>),
    );
    return { kind, credentials, identity };
  }

  /** One request: the registry authenticates the caller, checks its read and interpolates as it. */
  private async fetch(query: CredentialsQuery & { readonly resource: string }): Promise<ResolvedProvider> {
    const {
      identity,
      resource_type: resourceType,
      value,
    } = await this.items.resolveResource({
      actor: query.actor,
      workspace: query.workspace,
      path: query.resource,
    });
    if (!PROVIDER_KINDS.has(resourceType)) {
      throw new MeshError(
        'VALIDATION_FAILED',
        `the resource ${query.resource} is a ${resourceType} resource, not an AI provider`,
        { resource: query.resource, resourceType },
      );
    }
    const kind = resourceType as AIProviderKind;
    return { kind, credentials: credentialsFromResourceValue(kind, value), identity };
  }
}
