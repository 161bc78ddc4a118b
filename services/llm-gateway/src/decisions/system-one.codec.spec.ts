import { describe, expect, it } from 'vitest';
import { cloudflareAdapter } from '../providers/cloudflare/cloudflare.adapter.js';
import { ProviderCallError } from '../providers/provider-call.error.js';
import { credentialsFromResourceValue } from '../providers/provider-credentials.js';
import { typesafeAdapter } from '../providers/typesafe/typesafe.adapter.js';

const call = {
  model: 'jev-latest',
  state: { message: 'It crashes.' },
  questions: { urgent: { type: 'noul', instructions: 'Urgent?' } },
};

describe('System One decisions', () => {
  it("TypeSafe: POST {base_url}/systemone with the key as a bearer token; the reply's answers, model and usage", () => {
    const credentials = credentialsFromResourceValue('typesafe', { api_key: 'ts-1' });
    expect(typesafeAdapter.decisions!.buildRequest(call, credentials)).toEqual({
      method: 'POST',
      url: 'https://api.typesafe.ai/v1/systemone',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ts-1' },
      body: call,
    });
    // A base_url ends in the API version, as Windmill's (`http://host/v1`).
    const own = credentialsFromResourceValue('typesafe', {
      api_key: 'ts-1',
      base_url: 'http://10.0.0.7:9000/v1/',
    });
    expect(typesafeAdapter.decisions!.buildRequest(call, own).url).toBe('http://10.0.0.7:9000/v1/systemone');
    const reply = {
      model: 'jev-1.13.0',
      answers: { urgent: { type: 'noul', noul: 0.7 } },
      usage: { input_tokens: 12, output_tokens: 0 },
    };
    expect(typesafeAdapter.decisions!.parseResponse(reply, call)).toEqual({
      answers: reply.answers,
      model: 'jev-1.13.0',
      inputTokens: 12,
      outputTokens: 0,
    });
    expect(() => typesafeAdapter.decisions!.parseResponse({ model: 'x' }, call)).toThrow(ProviderCallError);
    // Chat is refused before anything is sent.
    expect(() => typesafeAdapter.buildRequest({} as never, credentials)).toThrow(/decision models/);
  });

  it("Cloudflare: Workers AI's run route of the account, its envelope unwrapped, a refusal named", () => {
    const credentials = credentialsFromResourceValue('cloudflare', { api_key: 'cf-1', account_id: 'acct' });
    expect(cloudflareAdapter.decisions!.buildRequest({ ...call, model: 'clef' }, credentials).url).toBe(
      'https://api.cloudflare.com/client/v4/accounts/acct/ai/run/@cf/cloudflare/clef',
    );
    const answers = { urgent: { type: 'noul', noul: 0.2 } };
    expect(
      cloudflareAdapter.decisions!.parseResponse(
        {
          result: { model: '@cf/cloudflare/clef', answers, usage: { input_tokens: 3 } },
          success: true,
          errors: [],
        },
        call,
      ),
    ).toEqual({ answers, model: '@cf/cloudflare/clef', inputTokens: 3, outputTokens: 0 });
    const refusal = (() => {
      try {
        cloudflareAdapter.decisions!.parseResponse(
          { result: null, success: false, errors: [{ code: 5006, message: 'bad schema' }] },
          call,
        );
      } catch (error) {
        return error as ProviderCallError;
      }
    })();
    expect([refusal?.errorClass, refusal?.message]).toEqual([
      'bad_request_user',
      'Cloudflare Workers AI refused the decision: bad schema',
    ]);
  });
});
