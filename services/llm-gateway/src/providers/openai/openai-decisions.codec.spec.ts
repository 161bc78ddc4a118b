import { describe, expect, it } from 'vitest';
import { ProviderCallError } from '../provider-call.error.js';
import { credentialsFromResourceValue } from '../provider-credentials.js';
import { openaiAdapter } from './openai.adapter.js';

const call = {
  model: 'gpt-6-luna',
  state: { message: 'It crashes.', plan: 'pro' },
  questions: {
    intent: { type: 'choice', instructions: 'Want?', criteria: { refund: 'Money back', bug: 'Broken' } },
    urgency: { type: 'score', instructions: 'Urgent?', criteria: ['low', 'high'] },
    angry: { type: 'noul', instructions: 'Angry?', criteria: { true: 'Shouting' } },
  },
};

/** A reply as the assumed Decisions API gives it (gateway README, "Decision models"). */
const reply = {
  id: 'dec_00000001',
  object: 'decision',
  created: 1764670000,
  model: 'gpt-6-luna-2026-10-01',
  results: [
    {
      name: 'intent',
      type: 'multiple_choice',
      label: 'bug',
      probabilities: [
        { label: 'refund', probability: 0.1 },
        { label: 'bug', probability: 0.9 },
      ],
      confidence: 0.85,
    },
    { name: 'urgency', type: 'scale', level: 1, probabilities: [0.4, 0.6], confidence: 0.6 },
    { name: 'angry', type: 'boolean', probability_true: 0.05 },
  ],
  usage: { input_tokens: 31, output_tokens: 3, total_tokens: 34 },
};

describe("OpenAI's Decisions API (assumed wire format)", () => {
  const codec = openaiAdapter.decisions!;

  it('POST {base_url}/decisions: the state as text, the questions as a list in OpenAI terms', () => {
    const credentials = credentialsFromResourceValue('openai', { api_key: 'sk-1', organization_id: 'org-1' });
    expect(codec.buildRequest(call, credentials)).toEqual({
      method: 'POST',
      url: 'https://api.openai.com/v1/decisions',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer sk-1',
        'openai-organization': 'org-1',
      },
      body: {
        model: 'gpt-6-luna',
        input: '{"message":"It crashes.","plan":"pro"}',
        questions: [
          {
            name: 'intent',
            instructions: 'Want?',
            type: 'multiple_choice',
            options: [
              { label: 'refund', description: 'Money back' },
              { label: 'bug', description: 'Broken' },
            ],
          },
          { name: 'urgency', instructions: 'Urgent?', type: 'scale', levels: ['low', 'high'] },
          { name: 'angry', instructions: 'Angry?', type: 'boolean', true_description: 'Shouting' },
        ],
      },
    });
  });

  it('reads the results back as System One answers, with the model and usage', () => {
    expect(codec.parseResponse(reply, call)).toEqual({
      answers: {
        intent: { type: 'choice', choice: 'bug', probabilities: { refund: 0.1, bug: 0.9 }, confidence: 0.85 },
        urgency: { type: 'score', score: 1, probabilities: [0.4, 0.6], confidence: 0.6 },
        angry: { type: 'noul', noul: 0.05 },
      },
      model: 'gpt-6-luna-2026-10-01',
      inputTokens: 31,
      outputTokens: 3,
    });
    expect(() => codec.parseResponse({ object: 'decision' }, call)).toThrow(ProviderCallError);
  });
});
