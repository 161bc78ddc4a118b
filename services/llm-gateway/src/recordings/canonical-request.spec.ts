import type { ChatParameters } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { canonicalChatRequest, canonicalDecideRequest, requestDigest } from './canonical-request.js';

const openai = { kind: 'openai' as const, resource: 'f/ai/openai', model: 'gpt-4o-mini' };
const parameters: ChatParameters = {
  system: 'You add.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Add 2 and 3' }] }],
  tools: [{ name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' } } } }],
  temperature: 0,
};

describe('canonical request and its digest', () => {
  it('keeps what decides the answer: provider kind and model, prompts, messages, tools, parameters', () => {
    expect(canonicalChatRequest(openai, undefined, parameters)).toEqual({
      provider: { kind: 'openai', model: 'gpt-4o-mini' },
      system: 'You add.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Add 2 and 3' }] }],
      tools: [{ name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' } } } }],
      temperature: 0,
    });
  });

  it('is the same whoever asks, with whichever credentials, in any key order; cache markers do not count', () => {
    const digest = requestDigest(canonicalChatRequest(openai, undefined, parameters));
    const reordered = {
      temperature: 0,
      tools: parameters.tools,
      messages: [
        { content: [{ text: 'Add 2 and 3', type: 'text' as const }], role: 'user' as const, cache: {} },
      ],
      system: 'You add.',
      stop: undefined,
    };
    const otherResource = { ...openai, resource: { apiKey: 'sk-secret' } } as never;
    expect(requestDigest(canonicalChatRequest(otherResource, undefined, reordered))).toBe(digest);
    expect(JSON.stringify(canonicalChatRequest(otherResource, undefined, reordered))).not.toContain(
      'sk-secret',
    );
  });

  it('differs when a prompt, a tool, a parameter, the model or a fallback differs', () => {
    const digest = requestDigest(canonicalChatRequest(openai, undefined, parameters));
    const variants = [
      canonicalChatRequest(openai, undefined, { ...parameters, system: 'You add numbers.' }),
      canonicalChatRequest(openai, undefined, { ...parameters, tools: [] }),
      canonicalChatRequest(openai, undefined, { ...parameters, temperature: 0.5 }),
      canonicalChatRequest({ ...openai, model: 'gpt-4o' }, undefined, parameters),
      canonicalChatRequest(openai, [{ ...openai, model: 'gpt-4o' }], parameters),
    ];
    for (const variant of variants) expect(requestDigest(variant)).not.toBe(digest);
  });

  it('keeps inline bytes as their sha256, so a recording stays readable', () => {
    const data = Buffer.alloc(3000, 7).toString('base64');
    const request = canonicalChatRequest(openai, undefined, {
      messages: [{ role: 'user', content: [{ type: 'inline_data', mediaType: 'image/png', data }] }],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'inline_data',
            mediaType: 'image/png',
            data: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
          },
        ],
      },
    ]);
  });

  it('a decision: provider kind and model, state and questions', () => {
    const request = canonicalDecideRequest({
      actor: { token: 't' },
      workspace: 'main',
      provider: { kind: 'typesafe', resource: 'f/ai/ts', model: 'jev-latest' },
      state: 'Refund me',
      questions: { intent: { type: 'choice', choices: ['refund', 'bug'] } } as never,
    });
    expect(request).toEqual({
      provider: { kind: 'typesafe', model: 'jev-latest' },
      state: 'Refund me',
      questions: { intent: { type: 'choice', choices: ['refund', 'bug'] } },
    });
  });
});
