import { describe, expect, it } from 'vitest';
import { REDACTED, scrubJsonLine, scrubSecretValues } from './secret-scrubber.js';

const OPENAI_KEY = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
const ANTHROPIC_KEY = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTEiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLWJ5dGVz';

describe('scrubSecretValues', () => {
  it.each([
    ['a bearer token', 'Authorization: Bearer abc123.def-456_ghi', `Authorization: Bearer ${REDACTED}`],
    ['basic credentials', 'header Basic dXNlcjpwYXNzd29yZA==', `header Basic ${REDACTED}`],
    ['an OpenAI key', `calling with ${OPENAI_KEY} now`, `calling with ${REDACTED} now`],
    ['an Anthropic key', `key=${ANTHROPIC_KEY}`, `key=${REDACTED}`],
    ['a JWT', `token ${JWT} expired`, `token ${REDACTED} expired`],
    ['a GitHub token', 'ghp_0123456789abcdefghijABCDEFGHIJ012345', REDACTED],
    ['an AWS access key id', 'AKIAIOSFODNN7EXAMPLE', REDACTED],
    [
      'a flowmesh API token',
      'token fm_gAqhbWBGjF14THXaFmH-HALtfBGitf1UcnDpvaxA4eM refused',
      `token ${REDACTED} refused`,
    ],
    [
      'a flowmesh job token',
      'fmj_eyJ2IjoxLCJ3b3Jrc3BhY2UiOiJtYWluIn0.Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA',
      REDACTED,
    ],
    [
      'a password in a URL',
      'connect postgres://flow:s3cr%40t@db.internal:5432/flowmesh failed',
      `connect postgres://flow:${REDACTED}@db.internal:5432/flowmesh failed`,
    ],
  ])('removes %s', (_what, input, expected) => {
    expect(scrubSecretValues(input)).toBe(expected);
  });

  it.each([
    'Bearer authentication is required',
    'Basic authentication failed',
    'task-management-and-risk-assessment-module',
    'sk-short',
    'fm_outbox_message_unpublished_index',
    'postgres://postgres@127.0.0.1:5432/postgres',
    'https://example.com:8443/path?q=1',
    'job 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f finished in 12 ms',
  ])('leaves ordinary text alone: %s', (text) => {
    expect(scrubSecretValues(text)).toBe(text);
  });
});

describe('scrubJsonLine', () => {
  it('redacts secret members at any depth, whatever the case of the key', () => {
    const line = JSON.stringify({ a: { b: { c: { Password: 'hunter2', api_key: 'k', 'X-Api-Key': 'x' } } } });
    expect(JSON.parse(scrubJsonLine(line))).toEqual({
      a: { b: { c: { Password: REDACTED, api_key: REDACTED, 'X-Api-Key': REDACTED } } },
    });
  });

  it('keeps counts and flags whose names only contain a secret word', () => {
    const value = {
      usage: { input_tokens: 12, max_tokens: 100 },
      is_secret: true,
      tokenizer: 'cl100k',
      secretName: 'db',
    };
    expect(scrubJsonLine(JSON.stringify(value))).toBe(JSON.stringify(value));
  });

  it('handles escaped quotes inside a secret value and stays valid JSON', () => {
    const line = JSON.stringify({ token: 'a"b\\"c', msg: `uses ${OPENAI_KEY}` });
    expect(JSON.parse(scrubJsonLine(line))).toEqual({ token: REDACTED, msg: `uses ${REDACTED}` });
  });
});
