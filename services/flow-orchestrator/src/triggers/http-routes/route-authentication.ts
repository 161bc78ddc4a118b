import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  ApiKeyAuthResourceSchema,
  BasicAuthResourceSchema,
  MeshError,
  SignatureAuthResourceSchema,
  type HttpTriggerAuthenticationMethod,
} from '@flowmesh/contracts';
import type { z } from 'zod';

/**
 * The checks of `api_key`, `basic_http` and `signature` routes, against the resource the route
 * names (Windmill's `http_trigger_auth.rs`). Every comparison is in constant time; a signature
 * is computed over the body's bytes exactly as received.
 */

export type ApiKeyAuth = z.infer<typeof ApiKeyAuthResourceSchema>;
export type BasicAuth = z.infer<typeof BasicAuthResourceSchema>;
export type SignatureAuth = z.infer<typeof SignatureAuthResourceSchema>;

export type RouteCredential =
  | { readonly method: 'api_key'; readonly config: ApiKeyAuth }
  | { readonly method: 'basic_http'; readonly config: BasicAuth }
  | { readonly method: 'signature'; readonly config: SignatureAuth };

/** How long a Stripe or Slack signature's timestamp stays good (their libraries' default). */
export const SIGNATURE_TOLERANCE_S = 300;

/** The resource value read as the method's shape; VALIDATION_FAILED (naming the resource field) otherwise. */
export function credentialOf(
  method: HttpTriggerAuthenticationMethod,
  value: unknown,
): RouteCredential | undefined {
  const schema =
    method === 'api_key'
      ? ApiKeyAuthResourceSchema
      : method === 'basic_http'
        ? BasicAuthResourceSchema
        : method === 'signature'
          ? SignatureAuthResourceSchema
          : undefined;
  if (!schema) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(value)';
    throw new MeshError(
      'VALIDATION_FAILED',
      `the authentication resource does not hold ${method} settings: ${field}: ${issue?.message ?? 'invalid'}`,
      {
        issues: [
          { path: 'authentication_resource_path', message: `${field}: ${issue?.message ?? 'invalid'}` },
        ],
      },
    );
  }
  return { method, config: parsed.data } as RouteCredential;
}

/** Why a request was refused (said to the caller; never a secret), or undefined when it passes. */
export interface RouteAuthFailure {
  readonly message: string;
  /** `WWW-Authenticate` to send with the 401 (basic auth). */
  readonly challenge?: string;
}

export function checkCredential(
  credential: RouteCredential,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowMs: number = Date.now(),
): RouteAuthFailure | undefined {
  switch (credential.method) {
    case 'api_key': {
      const given = header(headers, credential.config.api_key_header);
      return given !== undefined && sameText(given, credential.config.api_key_secret)
        ? undefined
        : { message: 'invalid api key' };
    }
    case 'basic_http':
      return basicPasses(headers, credential.config)
        ? undefined
        : { message: 'invalid credentials', challenge: 'Basic realm="Restricted Area"' };
    case 'signature':
      return signatureProblem(credential.config, headers, rawBody, nowMs);
  }
}

function basicPasses(headers: IncomingHttpHeaders, config: BasicAuth): boolean {
  const authorization = header(headers, 'authorization');
  const match = authorization === undefined ? null : /^Basic\s+(\S+)$/i.exec(authorization);
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both compared, whatever the first gave: no early answer tells which part was wrong.
  const user = sameText(decoded.slice(0, colon), config.username);
  const password = sameText(decoded.slice(colon + 1), config.password);
  return user && password;
}

function signatureProblem(
  config: SignatureAuth,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nowMs: number,
): RouteAuthFailure | undefined {
  const secret = config.secret_key;
  switch (config.signature_provider) {
    case 'github': {
      const given = header(headers, 'x-hub-signature-256');
      if (given === undefined) return { message: 'missing header x-hub-signature-256' };
      return sameText(given, `sha256=${hmac('sha256', secret, [rawBody], 'hex')}`)
        ? undefined
        : { message: 'signature invalid' };
    }
    case 'stripe': {
      const given = header(headers, 'stripe-signature');
      if (given === undefined) return { message: 'missing header stripe-signature' };
      const parts = given.split(',').map((part) => part.split('=', 2) as [string, string | undefined]);
      const timestamp = parts.find(([key]) => key.trim() === 't')?.[1];
      const signatures = parts.filter(([key]) => key.trim() === 'v1').map(([, value]) => value ?? '');
      if (timestamp === undefined || !/^\d+$/.test(timestamp))
        return { message: 'invalid signature timestamp' };
      if (signatures.length === 0) return { message: 'signature invalid' };
      const expected = hmac('sha256', secret, [Buffer.from(`${timestamp}.`), rawBody], 'hex');
      // Every v1 is compared (Stripe sends one per active secret), in constant time each.
      const valid = signatures.map((signature) => sameText(signature, expected)).includes(true);
      if (!valid) return { message: 'signature invalid' };
      return fresh(timestamp, nowMs)
        ? undefined
        : { message: 'signature timestamp too old or in the future' };
    }
    case 'slack': {
      const given = header(headers, 'x-slack-signature');
      const timestamp = header(headers, 'x-slack-request-timestamp');
      if (given === undefined || timestamp === undefined)
        return { message: 'missing header x-slack-signature' };
      const expected = `v0=${hmac('sha256', secret, [Buffer.from(`v0:${timestamp}:`), rawBody], 'hex')}`;
      if (!sameText(given, expected)) return { message: 'signature invalid' };
      return fresh(timestamp, nowMs)
        ? undefined
        : { message: 'signature timestamp too old or in the future' };
    }
    case 'custom': {
      const custom = config.authentication_config!;
      const given = header(headers, custom.signature_header_name);
      if (given === undefined)
        return { message: `missing header ${custom.signature_header_name.toLowerCase()}` };
      const expected = `${custom.signature_prefix ?? ''}${hmac(custom.algorithm, secret, [rawBody], custom.encoding)}`;
      return sameText(given, expected) ? undefined : { message: 'signature invalid' };
    }
  }
}

function hmac(
  algorithm: 'sha1' | 'sha256' | 'sha512',
  secret: string,
  parts: readonly Buffer[],
  encoding: 'hex' | 'base64' | 'base64uri',
): string {
  const mac = createHmac(algorithm, secret);
  for (const part of parts) mac.update(part);
  return mac.digest(encoding === 'base64uri' ? 'base64url' : encoding);
}

function fresh(timestamp: string, nowMs: number): boolean {
  const seconds = Number(timestamp);
  return Number.isFinite(seconds) && Math.abs(nowMs / 1000 - seconds) <= SIGNATURE_TOLERANCE_S;
}

/** Constant-time equality of two strings (their lengths may differ: that alone is not secret). */
function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(b, b);
    return false;
  }
  return timingSafeEqual(a, b);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
