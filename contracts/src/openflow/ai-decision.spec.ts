import { describe, expect, it } from 'vitest';
import { DecideReplySchema, DecideRequestSchema } from '../gateway/gateway.contract.js';
import { aiDecisionInputIssues, decisionProviderOf } from './ai-decision.schema.js';
import { parseOpenFlow } from './parse-openflow.js';

const staticOf = (value: unknown) => ({ type: 'static', value });

const intent = {
  type: 'choice',
  instructions: 'What does the customer want?',
  criteria: { refund: 'Money back', bug: 'Something is broken' },
};

function decisionFlow(inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    modules: [
      {
        id: 'd',
        value: {
          type: 'aidecision',
          input_transforms: {
            provider: staticOf({ kind: 'typesafe', resource: '$res:f/ai/typesafe' }),
            state: staticOf('I was charged twice'),
            questions: staticOf({ intent }),
            ...inputs,
          },
          ...extra,
        },
      },
    ],
  };
}

function errorsOf(input: unknown): string[] {
  const result = parseOpenFlow(input);
  return result.ok ? [] : result.errors.map((error) => `${error.path}: ${error.message}`);
}

const inputs = 'modules[0].value.input_transforms';

describe('aidecision: every rule checked before the call, each violation with its path', () => {
  it('accepts the three question types, each state shape, and a provider without a model', () => {
    for (const state of ['a message', { message: 'hi', plan: 'pro' }, ['one', 'two']])
      expect(
        errorsOf(
          decisionFlow({
            state: staticOf(state),
            questions: staticOf({
              intent,
              urgency: { type: 'score', instructions: 'How urgent?', criteria: ['low', 'high'] },
              angry: { type: 'noul', instructions: 'Angry?', criteria: { true: 'shouting', false: 'calm' } },
              human: { type: 'noul', instructions: 'Wants a human?' },
            }),
          }),
        ),
      ).toEqual([]);
  });

  it('names every violation at once: kinds, option count, score levels, state, question type', () => {
    const options = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`o${i}`, `option ${i}`]));
    const errors = errorsOf(
      decisionFlow({
        provider: staticOf({ kind: 'anthropic', resource: 'f/ai/a' }),
        state: staticOf([1, 2]),
        questions: staticOf({
          many: { type: 'choice', instructions: 'Pick', criteria: options },
          one: { type: 'score', instructions: 'Rate', criteria: ['only'] },
          eleven: {
            type: 'score',
            instructions: 'Rate',
            criteria: Array.from({ length: 11 }, (_, i) => `l${i}`),
          },
          odd: { type: 'rank', instructions: 'Rank' },
          yes: { type: 'noul', instructions: '', criteria: { maybe: 'x' } },
        }),
      }),
    );
    expect(errors).toEqual([
      `${inputs}.provider.value.kind: must be a decision model provider (typesafe, cloudflare, openai), got "anthropic"`,
      `${inputs}.state.value: expected a string, an object or an array of strings`,
      `${inputs}.questions.value.many.criteria: must have at most 255 options, has 256`,
      `${inputs}.questions.value.one.criteria: must have at least 2 levels`,
      `${inputs}.questions.value.eleven.criteria: must have at most 10 levels`,
      `${inputs}.questions.value.odd.type: unknown question type "rank"; expected one of choice, score, noul`,
      `${inputs}.questions.value.yes.instructions: must not be empty`,
      expect.stringMatching(
        new RegExp(`^${inputs.replace(/[.[\]]/g, '\\$&')}\\.questions\\.value\\.yes\\.criteria: .*maybe`),
      ),
    ]);
  });

  it('cloudflare serves clef and clef-flash only; no questions is a violation', () => {
    expect(
      errorsOf(
        decisionFlow({
          provider: staticOf({ kind: 'cloudflare', resource: 'f/ai/cf', model: 'llama-3' }),
          questions: staticOf({}),
        }),
      ),
    ).toEqual([
      `${inputs}.provider.value.model: cloudflare serves the decision models clef, clef-flash, not "llama-3"`,
      `${inputs}.questions.value: needs at least one question`,
    ]);
  });

  it('branches and default hold modules, checked like a branchone', () => {
    expect(
      errorsOf(
        decisionFlow(
          {},
          {
            branches: [
              {
                expr: 'previous_result.output.intent.choice === "bug"',
                modules: [{ id: 'd', value: { type: 'identity' } }],
              },
            ],
            default: [{ id: 'x', value: { type: 'nope' } }],
          },
        ),
      ).map((error) => error.split(':')[0]),
    ).toEqual(
      expect.arrayContaining([
        'modules[0].value.default[0].value.type',
        expect.stringMatching(/branches\[0\]\.modules\[0\]\.id/),
      ]),
    );
  });

  it('checks evaluated inputs the same way, and fills in the default model per provider', () => {
    expect(aiDecisionInputIssues({ provider: { kind: 'openai', resource: 'f/ai/o' }, state: 'x' })).toEqual([
      { path: ['questions'], message: 'required' },
    ]);
    expect(decisionProviderOf({ kind: 'typesafe', resource: 'f/ai/t' }).model).toBe('jev-latest');
    expect(decisionProviderOf({ kind: 'cloudflare', resource: 'f/ai/c' }).model).toBe('clef');
    expect(decisionProviderOf({ kind: 'openai', resource: 'f/ai/o', model: 'gpt-6-luna-mini' }).model).toBe(
      'gpt-6-luna-mini',
    );
  });

  it('gateway.decide: a request names a decision provider; a reply carries normalized answers', () => {
    const request = {
      actor: { token: 't' },
      workspace: 'main',
      provider: { kind: 'mistral', resource: 'f/ai/m', model: 'm' },
      state: 'x',
      questions: { intent },
    };
    const parsed = DecideRequestSchema.safeParse(request);
    expect(parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'))).toEqual([
      'provider.kind',
    ]);
    expect(
      DecideReplySchema.safeParse({
        answers: {
          intent: {
            type: 'choice',
            choice: 'refund',
            probabilities: { refund: 0.9, bug: 0.1 },
            confidence: 0.8,
          },
          urgency: { type: 'score', score: 1, legend: 'high', probabilities: [0.3, 0.7], confidence: 0.7 },
          angry: { type: 'noul', noul: 0.2 },
        },
        model: 'jev-1.13.0',
        usage: { inputTokens: 10, outputTokens: 0 },
      }).success,
    ).toBe(true);
    expect(
      DecideReplySchema.safeParse({
        answers: { angry: { type: 'noul', noul: 1.2 } },
        model: 'm',
        usage: { inputTokens: 0, outputTokens: 0 },
      }).success,
    ).toBe(false);
  });
});
