import type { DecisionsCodec } from '../providers/provider-adapter.js';
import { providerCallError } from '../providers/provider-call.error.js';
import type { ProviderCredentials } from '../providers/provider-credentials.js';

/**
 * The System One decisions format, which TypeSafe's Jev defined and Cloudflare's Clef speaks:
 * `POST {model, state, questions}` with the key as a bearer token, answered
 * `{model, answers: {<name>: answer}, usage: {input_tokens, output_tokens}}`. Cloudflare wraps the
 * answer in its `{result, success, errors}` envelope, which is unwrapped here.
 */
export function systemOneDecisions(
  vendor: string,
  url: (credentials: ProviderCredentials, model: string) => string,
): DecisionsCodec {
  return {
    buildRequest(call, credentials) {
      return {
        method: 'POST',
        url: url(credentials, call.model),
        headers: {
          'content-type': 'application/json',
          ...(credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {}),
        },
        body: { model: call.model, state: call.state, questions: call.questions },
      };
    },
    parseResponse(body, call) {
      const reply = unwrapped(vendor, body);
      const answers = reply.answers;
      if (!isRecord(answers) || !Object.values(answers).every(isRecord))
        throw providerCallError('provider_outage', `${vendor} answered without answers to the questions`, {
          model: call.model,
        });
      const usage = isRecord(reply.usage) ? reply.usage : {};
      return {
        answers: answers as Record<string, Record<string, unknown>>,
        model: typeof reply.model === 'string' ? reply.model : call.model,
        inputTokens: count(usage.input_tokens),
        outputTokens: count(usage.output_tokens),
      };
    },
  };
}

function unwrapped(vendor: string, body: unknown): Record<string, unknown> {
  if (!isRecord(body))
    throw providerCallError('provider_outage', `${vendor} answered something that is not an object`);
  if (!('result' in body) || 'answers' in body) return body;
  if (body.success === false) {
    const first = Array.isArray(body.errors) && isRecord(body.errors[0]) ? body.errors[0] : {};
    throw providerCallError(
      'bad_request_user',
      `${vendor} refused the decision: ${typeof first.message === 'string' ? first.message : 'no reason given'}`,
    );
  }
  return isRecord(body.result) ? body.result : {};
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
