import { describe, expect, it } from 'vitest';
import { credentialsFromResourceValue, inlineResourceValue } from './provider-credentials.js';

describe('inlineResourceValue', () => {
  it("reads Windmill's ProviderResource names as the resource type's, and leaves out fields the type lacks", () => {
    expect(
      inlineResourceValue('anthropic', {
        apiKey: 'sk-ant',
        baseUrl: 'https://llm.example.com',
        enable_1M_context: true,
        headers: { 'X-Team': 'ai' },
        region: 'us-east5',
        platform: 'google_vertex_ai',
        aws_access_key_id: 'not for anthropic',
        unknown: 1,
      }),
    ).toEqual({
      api_key: 'sk-ant',
      base_url: 'https://llm.example.com',
      enable_1m_context: true,
      custom_headers: { 'X-Team': 'ai' },
      region: 'us-east5',
      platform: 'google_vertex_ai',
    });
  });

  it("keeps the type's own name when both are given, and drops null fields", () => {
    expect(
      inlineResourceValue('openai', { api_key: 'own', apiKey: 'windmill', base_url: null, baseUrl: null }),
    ).toEqual({ api_key: 'own' });
  });

  it('gives a value the credentials are made from, bedrock with its AWS key pair', () => {
    const credentials = credentialsFromResourceValue(
      'aws_bedrock',
      inlineResourceValue('aws_bedrock', {
        region: 'eu-west-1',
        aws_access_key_id: 'AKIA',
        aws_secret_access_key: 'secret',
        apiKey: undefined,
      }),
    );
    expect(credentials).toMatchObject({
      provider: 'aws_bedrock',
      region: 'eu-west-1',
      aws_access_key_id: 'AKIA',
      aws_secret_access_key: 'secret',
    });
    // Sealed: printed or serialized, it shows no field.
    expect(JSON.stringify({ credentials })).toBe('{"credentials":"[ProviderCredentials aws_bedrock]"}');
  });
});
