import { inspect } from 'node:util';
import { MeshError, PROVIDER_CREDENTIAL_SCHEMAS, type AIProviderKind } from '@flowmesh/contracts';

/** Where a provider kind is hosted, when it can be hosted in more than one place. */
export type AIPlatform = 'standard' | 'google_vertex_ai';

/**
 * The resolved runtime credentials of one provider resource (the `ProviderCredentials` of the
 * windmill-ai refactor plan): what an adapter needs to call the provider, and nothing about the
 * model, which stays request data. Field names follow the resource values in the registry.
 *
 * Never logged, never in an error, never in a trace attribute: objects made by
 * `sealCredentials` print and serialize as `[ProviderCredentials <kind>]`.
 */
export interface ProviderCredentials {
  readonly provider: AIProviderKind;
  /** Absent: the adapter's default for the provider. */
  readonly base_url?: string;
  readonly api_key?: string;
  /** An OAuth access token (Vertex, Entra) instead of an API key. */
  readonly access_token?: string;
  readonly organization_id?: string;
  readonly user?: string;
  readonly platform: AIPlatform;
  readonly region?: string;
  readonly aws_access_key_id?: string;
  readonly aws_secret_access_key?: string;
  readonly aws_session_token?: string;
  readonly enable_1m_context: boolean;
  /** Sent with every request to this provider, after the adapter's own headers. */
  readonly custom_headers: Readonly<Record<string, string>>;
  /** Azure's `api-version`. */
  readonly api_version?: string;
  /** Cloudflare's account id. */
  readonly account_id?: string;
}

const REDACTED = (kind: string) => `[ProviderCredentials ${kind}]`;

/** Freezes the credentials and makes them print and serialize without their values. */
export function sealCredentials(credentials: ProviderCredentials): ProviderCredentials {
  const sealed = { ...credentials, custom_headers: { ...credentials.custom_headers } };
  Object.defineProperty(sealed, 'toJSON', { value: () => REDACTED(credentials.provider), enumerable: false });
  Object.defineProperty(sealed, inspect.custom, {
    value: () => REDACTED(credentials.provider),
    enumerable: false,
  });
  Object.freeze(sealed.custom_headers);
  return Object.freeze(sealed);
}

/**
 * Credentials from an interpolated provider resource value, checked against the resource type of
 * `kind` (the same zod schema the registry validates with). The error names the fields that are
 * wrong, never their values.
 */
export function credentialsFromResourceValue(kind: AIProviderKind, value: unknown): ProviderCredentials {
  const parsed = PROVIDER_CREDENTIAL_SCHEMAS[kind].safeParse(value);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(value)'))];
    throw new MeshError(
      'VALIDATION_FAILED',
      `the ${kind} provider resource is not a valid ${kind} credential (check: ${fields.join(', ')})`,
      { fields },
    );
  }
  const fields = parsed.data as Record<string, unknown>;
  const text = (key: string): string | undefined => {
    const field = fields[key];
    return typeof field === 'string' && field.length > 0 ? field : undefined;
  };
  const headers = fields.custom_headers;
  return sealCredentials({
    provider: kind,
    base_url: text('base_url')?.replace(/\/+$/, ''),
    api_key: text('api_key'),
    organization_id: text('organization_id'),
    user: text('user'),
    platform: text('platform') === 'google_vertex_ai' ? 'google_vertex_ai' : 'standard',
    region: text('region'),
    aws_access_key_id: text('aws_access_key_id'),
    aws_secret_access_key: text('aws_secret_access_key'),
    aws_session_token: text('aws_session_token'),
    enable_1m_context: fields.enable_1m_context === true,
    // Lowercased, so a resource's `Authorization` replaces the adapter's `authorization` rather
    // than going out beside it (header names are case-insensitive; object keys are not).
    custom_headers: isStringRecord(headers) ? lowercaseNames(headers) : {},
    api_version: text('api_version'),
    account_id: text('account_id'),
  });
}

/** Windmill's `ProviderResource` names, as the resource types of the registry name them. */
const WINDMILL_NAMES: Readonly<Record<string, string>> = {
  apiKey: 'api_key',
  baseUrl: 'base_url',
  enable_1M_context: 'enable_1m_context',
  headers: 'custom_headers',
};

/**
 * An inline provider resource (Windmill's `ProviderResource`, already interpolated) as a value of
 * the kind's resource type: Windmill's field names renamed (the type's own name wins when both are
 * given), fields the type does not know left out, as Windmill's deserializer ignores them.
 */
export function inlineResourceValue(
  kind: AIProviderKind,
  inline: Readonly<Record<string, unknown>>,
): unknown {
  const known = new Set(Object.keys(PROVIDER_CREDENTIAL_SCHEMAS[kind].shape));
  const value: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(inline)) {
    const renamed = WINDMILL_NAMES[name] ?? name;
    if (!known.has(renamed) || field === undefined || field === null) continue;
    if (renamed !== name && Object.hasOwn(inline, renamed)) continue;
    value[renamed] = field;
  }
  return value;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((entry) => typeof entry === 'string')
  );
}

function lowercaseNames(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
