import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { ProviderErrorClass } from './chat-event.schema.js';

/**
 * Whose fault a failed agent step, decision step or gateway call is, beside its error class:
 * `user` (their key, their model, their input: the run ends naming it and nobody is paged) or
 * `internal` (ours: a request we built, our key, our bug, a provider outage; it pages). Anything
 * no rule below names is `internal`: a failure wrongly called `user` hides an outage, one wrongly
 * called `internal` only pages once too often.
 */
export const FAULT_CLASSES = ['user', 'internal'] as const;
export const FaultClassSchema = z.enum(FAULT_CLASSES);
export type FaultClass = z.infer<typeof FaultClassSchema>;

/**
 * Whose key a provider call used: `user` for a provider resource of the caller's workspace (or
 * given inline), `platform` for one the operator manages for every workspace
 * (`FLOWMESH_GATEWAY_MANAGED_PROVIDER_RESOURCES`). Unknown counts as `platform`.
 */
export type KeyOwner = 'user' | 'platform';

/**
 * Messages that name a model the provider does not serve (retired, unknown, not deployed). Read
 * only from a structured (JSON) error's message, never from a raw body: an HTML error page whose
 * footer says "deprecated" must not launder an outage.
 */
export const MODEL_UNAVAILABLE_PATTERNS: readonly RegExp[] = [
  /model[_ ]not[_ ]found/i,
  /\bmodel\b.*\b(does not exist|not found|is not available|has been (deprecated|decommissioned|retired)|decommissioned)\b/i,
  /deploymentnotfound/i,
  /the api deployment for this resource does not exist/i,
  /invalid model/i,
  /unknown model/i,
  // Anthropic's not_found_error names the model alone: "model: claude-3-opus-20240229".
  /\bmodel: [\w.:@/-]+$/i,
];

/** Providers' explicit "this account's credit is spent" code: the only billing signal believed. */
export const BILLING_EXHAUSTED_CODE = 'insufficient_quota';

/** Entities whose absence is the user's configuration: their provider resource, their model. */
export const AI_PROVIDER_ENTITIES = ['ai_provider', 'ai_model'] as const;
export type AiProviderEntity = (typeof AI_PROVIDER_ENTITIES)[number];

/** What a failure is classified from. */
export type FaultInput =
  /** A provider answered with an error (or the gateway classified one), on someone's key. */
  | {
      readonly source: 'provider';
      readonly class: ProviderErrorClass;
      /** The provider's own code (`insufficient_quota`, `model_not_found`, ...). */
      readonly providerCode?: string;
      /** The provider's structured error message (never a raw body). */
      readonly message?: string;
      readonly key: KeyOwner | undefined;
    }
  /** A mesh error (a service's `{ code, details }`), with the kind of entity it names, if any. */
  | { readonly source: 'mesh'; readonly code: ErrorCode; readonly entity?: string }
  /**
   * The caller's own request to a gateway edge (HTTP, the workspace proxy), refused by the
   * edge's checks before any provider was called, naming the field (`param`) to fix.
   */
  | { readonly source: 'request' }
  /**
   * A step's own verdict: `input` (a field of the step the user wrote is wrong, named),
   * `tool` (the user's tool or MCP server failed), `bug` (anything unexpected of ours).
   */
  | { readonly source: 'step'; readonly kind: 'input' | 'tool' | 'bug' };

/**
 * The one fault classifier (seed 001's `classifyAgentRunError`, its four traps kept):
 *
 * - a 4xx is not the user's because it is a 4xx: a request we built (`bad_request_internal`,
 *   an illegal generated tool name; `context_window_exceeded`, a prompt still over the window
 *   after compaction) is `internal`;
 * - auth on the platform's key is ours (it fails every workspace at once); on the user's own key
 *   it is theirs;
 * - billing exhaustion is the user's only by the provider's explicit `insufficient_quota` code on
 *   their key, never a 402 or a body that says "credits";
 * - a retired or unknown model is the user's on their key when the provider's code or message
 *   names the model; on the platform's key it is a stale constant of ours;
 * - a mesh `NOT_FOUND` is the user's only when it names an AI-provider entity;
 * - a request an edge refused naming its field is the caller's.
 */
export function classifyFault(input: FaultInput): FaultClass {
  switch (input.source) {
    case 'provider':
      return providerFault(input);
    case 'mesh':
      return (input.code === 'NOT_FOUND' || input.code === 'PERMISSION_DENIED') &&
        (AI_PROVIDER_ENTITIES as readonly string[]).includes(input.entity ?? '')
        ? 'user'
        : 'internal';
    case 'request':
      return 'user';
    case 'step':
      return input.kind === 'bug' ? 'internal' : 'user';
  }
}

function providerFault(input: Extract<FaultInput, { source: 'provider' }>): FaultClass {
  const own = input.key === 'user';
  switch (input.class) {
    case 'auth_failed':
      return own ? 'user' : 'internal';
    case 'quota_exceeded':
      return own && input.providerCode === BILLING_EXHAUSTED_CODE ? 'user' : 'internal';
    case 'model_unavailable':
      return own && namesModel(input) ? 'user' : 'internal';
    // What the user controls (a filtered prompt, an option their model does not take, a provider
    // resource that cannot be used as written, a spend budget their admin set), and a call its
    // caller stopped.
    case 'bad_request_user':
    case 'budget_exceeded':
    case 'cancelled':
      return 'user';
    default:
      return 'internal';
  }
}

const MODEL_NOT_FOUND_CODES: ReadonlySet<string> = new Set(['model_not_found', 'DeploymentNotFound']);

function namesModel(input: { readonly providerCode?: string; readonly message?: string }): boolean {
  if (input.providerCode !== undefined && MODEL_NOT_FOUND_CODES.has(input.providerCode)) return true;
  const message = input.message;
  return message !== undefined && MODEL_UNAVAILABLE_PATTERNS.some((pattern) => pattern.test(message));
}

/** The fault a failed step's or run's result (`{ error: { fault } }`) says, if it says one. */
export function faultOfResult(result: unknown): FaultClass | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const error = (result as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const fault = FaultClassSchema.safeParse((error as { fault?: unknown }).fault);
  return fault.success ? fault.data : undefined;
}
