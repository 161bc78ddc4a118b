import { describe, expect, it } from 'vitest';
import { classifyFault, type FaultClass, type FaultInput } from './fault.js';

/** Every rule of seed 001's fault split, and each of the four ways to get it wrong. */
const RULES: ReadonlyArray<readonly [string, FaultInput, FaultClass]> = [
  // Auth: the user's own key is theirs; the platform's key fails everyone and pages.
  ['401 on the user key', { source: 'provider', class: 'auth_failed', key: 'user' }, 'user'],
  ['401 on the platform key', { source: 'provider', class: 'auth_failed', key: 'platform' }, 'internal'],
  ['401 on a key of unknown owner', { source: 'provider', class: 'auth_failed', key: undefined }, 'internal'],
  // A 4xx is not the user's for being a 4xx: requests we built are ours.
  [
    '400 for an illegal generated tool name',
    {
      source: 'provider',
      class: 'bad_request_internal',
      message: 'tools.0.name: String should match pattern',
      key: 'user',
    },
    'internal',
  ],
  [
    '413 for a prompt still over the window after compaction',
    { source: 'provider', class: 'context_window_exceeded', providerCode: 'request_too_large', key: 'user' },
    'internal',
  ],
  // Billing only by the explicit marker, on the user's key.
  [
    '429 insufficient_quota on the user key',
    { source: 'provider', class: 'quota_exceeded', providerCode: 'insufficient_quota', key: 'user' },
    'user',
  ],
  [
    'insufficient_quota on the platform key',
    { source: 'provider', class: 'quota_exceeded', providerCode: 'insufficient_quota', key: 'platform' },
    'internal',
  ],
  [
    'quota without the marker (a 402, a message about credits)',
    { source: 'provider', class: 'quota_exceeded', message: 'Your credit balance is too low', key: 'user' },
    'internal',
  ],
  [
    'a 500 whose page says credits',
    { source: 'provider', class: 'provider_outage', message: 'OpenAI answered 500', key: 'user' },
    'internal',
  ],
  // A retired or unknown model: the user's on their key when the provider names the model.
  [
    'model_not_found on the user key',
    { source: 'provider', class: 'model_unavailable', providerCode: 'model_not_found', key: 'user' },
    'user',
  ],
  [
    'a decommissioned model named in the message on the user key',
    {
      source: 'provider',
      class: 'model_unavailable',
      message: 'Groq answered 400: The model `llama3-70b` has been decommissioned',
      key: 'user',
    },
    'user',
  ],
  [
    "Anthropic's not_found naming the model on the user key",
    {
      source: 'provider',
      class: 'model_unavailable',
      message: 'Anthropic answered 404: model: claude-x',
      key: 'user',
    },
    'user',
  ],
  [
    'a retired model on the platform key',
    { source: 'provider', class: 'model_unavailable', providerCode: 'model_not_found', key: 'platform' },
    'internal',
  ],
  [
    'a bare provider 404 naming no model',
    { source: 'provider', class: 'model_unavailable', message: 'Anthropic answered 404', key: 'user' },
    'internal',
  ],
  // What the user controls, and what nobody controls.
  ['a filtered prompt', { source: 'provider', class: 'bad_request_user', key: 'user' }, 'user'],
  ['a cancelled call', { source: 'provider', class: 'cancelled', key: 'user' }, 'user'],
  ['a rate limit', { source: 'provider', class: 'rate_limited', key: 'user' }, 'internal'],
  ['a provider outage', { source: 'provider', class: 'provider_outage', key: 'user' }, 'internal'],
  // A bare not-found is our bug unless it names an AI-provider entity.
  ['a bare NOT_FOUND', { source: 'mesh', code: 'NOT_FOUND' }, 'internal'],
  ['NOT_FOUND of a job', { source: 'mesh', code: 'NOT_FOUND', entity: 'job' }, 'internal'],
  [
    'NOT_FOUND of the provider resource',
    { source: 'mesh', code: 'NOT_FOUND', entity: 'ai_provider' },
    'user',
  ],
  ['NOT_FOUND of the model', { source: 'mesh', code: 'NOT_FOUND', entity: 'ai_model' }, 'user'],
  ['VALIDATION_FAILED naming no field', { source: 'mesh', code: 'VALIDATION_FAILED' }, 'internal'],
  ['INTERNAL', { source: 'mesh', code: 'INTERNAL', entity: 'ai_provider' }, 'internal'],
  // A request an edge refused, naming the caller's field.
  ['a request refused naming its field', { source: 'request' }, 'user'],
  // A step's own verdicts.
  ["a field of the user's step", { source: 'step', kind: 'input' }, 'user'],
  ["the user's MCP server", { source: 'step', kind: 'tool' }, 'user'],
  ['anything unexpected', { source: 'step', kind: 'bug' }, 'internal'],
];

describe('classifyFault', () => {
  it.each(RULES)('%s is %s', (_name, input, fault) => {
    expect(classifyFault(input)).toBe(fault);
  });
});
