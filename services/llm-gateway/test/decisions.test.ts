import { randomBytes } from 'node:crypto';
import {
  createGatewayClient,
  MeshError,
  type AiDecisionQuestions,
  type GatewayClient,
} from '@flowmesh/contracts';
import {
  startFakeOpenAIDecisions,
  startFakeSystemOne,
  waitFor,
  type FakeOpenAIDecisions,
  type FakeSystemOne,
} from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Decision models end to end: `gateway.decide` over NATS and `POST /v1/decisions` over HTTP,
 * through registry-held provider resources, to each vendor's wire-faithful fake (TypeSafe's and
 * Cloudflare's System One, OpenAI's Decisions API); asserted on the normalized answers, the exact
 * request the fake received, the error classes and the audit rows.
 */

const KEY = `ts-${randomBytes(8).toString('hex')}`;
const OPENAI_KEY = `sk-${randomBytes(8).toString('hex')}`;

const questions: AiDecisionQuestions = {
  intent: {
    type: 'choice',
    instructions: 'What does the customer want?',
    criteria: { refund: 'Money back', bug: 'Something is broken' },
  },
  urgency: { type: 'score', instructions: 'How urgent?', criteria: ['whenever', 'this week', 'today'] },
  angry: { type: 'noul', instructions: 'Is the customer angry?', criteria: { true: 'Upset', false: 'Calm' } },
};

/** Normalized answers, as the gateway replies them. */
const choiceAnswer = (choice: string, probabilities: Record<string, number>, confidence: number) => ({
  type: 'choice',
  choice,
  probabilities,
  confidence,
});
const scoreAnswer = (score: number, legend: string, probabilities: number[], confidence: number) => ({
  type: 'score',
  score,
  legend,
  probabilities,
  confidence,
});

let cast: GatewayCast;
let systemOne: FakeSystemOne;
let openai: FakeOpenAIDecisions;
let gateway: GatewayClient;

beforeAll(async () => {
  [cast, systemOne, openai] = await Promise.all([
    startGatewayCast(),
    startFakeSystemOne({ apiKey: KEY }),
    startFakeOpenAIDecisions({ apiKey: OPENAI_KEY }),
  ]);
  gateway = createGatewayClient(cast.registry.client);
  await cast.providerResource('f/ai/typesafe', 'typesafe', { base_url: systemOne.baseUrl }, KEY);
  await cast.providerResource(
    'f/ai/cloudflare',
    'cloudflare',
    { base_url: `${systemOne.url}/client/v4/accounts/acct-7/ai/v1` },
    KEY,
  );
  await cast.providerResource('f/ai/openai', 'openai', { base_url: openai.baseUrl }, OPENAI_KEY);
  await cast.providerResource('f/ai/typesafe_wrong', 'typesafe', { base_url: systemOne.baseUrl }, 'ts-wrong');
});

afterAll(async () => {
  await Promise.all([systemOne?.close(), openai?.close()]);
  await cast?.stop();
});

const decide = (
  kind: 'typesafe' | 'cloudflare' | 'openai',
  resource: string,
  model: string,
  state: unknown = 'I was charged twice!',
) =>
  gateway.decide({
    actor: cast.reader,
    workspace: 'main',
    provider: { kind, resource, model },
    state: state as string,
    questions,
  });

describe('llm-gateway: decision models', { timeout: 60_000 }, () => {
  it('TypeSafe: POST {base_url}/systemone with the key as a bearer token; each question type normalized', async () => {
    systemOne.answer({
      intent: { type: 'choice', choice: 'refund', probabilities: { refund: 0.9, bug: 0.1 }, confidence: 0.8 },
      urgency: { type: 'score', score: 2, probabilities: [0.1, 0.2, 0.7] },
      angry: { type: 'noul', noul: 0.65 },
    });
    const reply = await decide('typesafe', '$res:f/ai/typesafe', 'jev-latest', { message: 'charged twice' });
    expect(reply).toEqual({
      answers: {
        intent: choiceAnswer('refund', { refund: 0.9, bug: 0.1 }, 0.8),
        // The legend is the chosen level's description; the confidence its probability.
        urgency: scoreAnswer(2, 'today', [0.1, 0.2, 0.7], 0.7),
        angry: { type: 'noul', noul: 0.65 },
      },
      model: 'jev-1.13.0',
      usage: { inputTokens: JSON.stringify({ message: 'charged twice' }).length, outputTokens: 0 },
    });
    const sent = systemOne.requests.at(-1)!;
    expect([sent.path, sent.headers.authorization]).toEqual(['/v1/systemone', `Bearer ${KEY}`]);
    expect(sent.body).toEqual({ model: 'jev-latest', state: { message: 'charged twice' }, questions });
  });

  it("Cloudflare: Clef through Workers AI's run route, its envelope unwrapped", async () => {
    systemOne.answer({
      intent: { type: 'choice', choice: 'bug', probabilities: { refund: 0.2, bug: 0.8 }, confidence: 0.6 },
      urgency: { type: 'score', score: 0, probabilities: [0.5, 0.3, 0.2], confidence: 0.5 },
      angry: { type: 'noul', noul: 0.1 },
    });
    const reply = await decide('cloudflare', 'f/ai/cloudflare', 'clef-flash', ['line one', 'line two']);
    expect(reply.model).toBe('@cf/cloudflare/clef-flash');
    expect(reply.answers.intent).toMatchObject({ choice: 'bug', confidence: 0.6 });
    expect(reply.answers.urgency).toMatchObject({ score: 0, legend: 'whenever' });
    expect(systemOne.requests.at(-1)!.path).toBe(
      '/client/v4/accounts/acct-7/ai/run/@cf/cloudflare/clef-flash',
    );
  });

  it("OpenAI: the Decisions API's questions and results, translated both ways", async () => {
    openai.answer({
      intent: {
        type: 'multiple_choice',
        label: 'refund',
        probabilities: [
          { label: 'refund', probability: 0.7 },
          { label: 'bug', probability: 0.3 },
        ],
        confidence: 0.7,
      },
      urgency: { type: 'scale', level: 1, probabilities: [0.2, 0.6, 0.2], confidence: 0.6 },
      angry: { type: 'boolean', probability_true: 0.4 },
    });
    const reply = await decide('openai', 'f/ai/openai', 'gpt-6-luna');
    expect(reply).toEqual({
      answers: {
        intent: choiceAnswer('refund', { refund: 0.7, bug: 0.3 }, 0.7),
        urgency: scoreAnswer(1, 'this week', [0.2, 0.6, 0.2], 0.6),
        angry: { type: 'noul', noul: 0.4 },
      },
      model: 'gpt-6-luna',
      usage: { inputTokens: 'I was charged twice!'.length, outputTokens: 3 },
    });
    const sent = openai.requests.at(-1)!;
    expect([sent.path, sent.headers.authorization]).toEqual(['/v1/decisions', `Bearer ${OPENAI_KEY}`]);
    expect(sent.body).toEqual({
      model: 'gpt-6-luna',
      input: 'I was charged twice!',
      questions: [
        {
          name: 'intent',
          instructions: 'What does the customer want?',
          type: 'multiple_choice',
          options: [
            { label: 'refund', description: 'Money back' },
            { label: 'bug', description: 'Something is broken' },
          ],
        },
        {
          name: 'urgency',
          instructions: 'How urgent?',
          type: 'scale',
          levels: ['whenever', 'this week', 'today'],
        },
        {
          name: 'angry',
          instructions: 'Is the customer angry?',
          type: 'boolean',
          true_description: 'Upset',
          false_description: 'Calm',
        },
      ],
    });
  });

  it('classifies failures like chat calls: a wrong key, an answer off the options, a rate limit retried', async () => {
    const wrongKey = await decide('typesafe', 'f/ai/typesafe_wrong', 'jev-latest').catch(
      (error: unknown) => error,
    );
    expect(wrongKey).toBeInstanceOf(MeshError);
    expect((wrongKey as MeshError).details).toMatchObject({ class: 'auth_failed', provider: 'typesafe' });

    systemOne.answer({
      intent: { type: 'choice', choice: 'cancel' },
      urgency: { type: 'score', score: 0 },
      angry: { type: 'noul', noul: 0.5 },
    });
    const offOptions = await decide('typesafe', 'f/ai/typesafe', 'jev-latest').catch(
      (error: unknown) => error,
    );
    expect((offOptions as MeshError).details).toMatchObject({
      class: 'provider_outage',
      message: 'typesafe gave question intent an answer that is not a choice answer',
    });

    systemOne.failNext(
      429,
      { error: { type: 'rate_limit_error', message: 'slow down' } },
      { 'retry-after': '0' },
    );
    const retried = await decide('typesafe', 'f/ai/typesafe', 'jev-latest');
    expect(retried.model).toBe('jev-1.13.0');

    // A request breaking a rule never reaches a provider: the contract names the field.
    const before = systemOne.requests.length;
    const invalid = await gateway
      .decide({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'typesafe', resource: 'f/ai/typesafe', model: 'jev-latest' },
        state: 'x',
        questions: { urgency: { type: 'score', instructions: 'How urgent?', criteria: ['only'] } },
      })
      .catch((error: unknown) => error);
    expect((invalid as MeshError).code).toBe('VALIDATION_FAILED');
    expect((invalid as MeshError).message).toMatch(/questions\.urgency\.criteria/);
    expect(systemOne.requests.length).toBe(before);
  });

  it('POST /v1/decisions for direct clients: the default model, the same answers, one audit row per call', async () => {
    systemOne.answer({
      intent: { type: 'choice', choice: 'bug', probabilities: { refund: 0.25, bug: 0.75 }, confidence: 0.75 },
      urgency: { type: 'score', score: 1, probabilities: [0.1, 0.8, 0.1], confidence: 0.8 },
      angry: { type: 'noul', noul: 0.3 },
    });
    const state = `http decision ${randomBytes(4).toString('hex')}`;
    const httpHeaders = {
      ...cast.headers('f/ai/typesafe'),
      authorization: `Bearer ${cast.reader.token}`,
      'content-type': 'application/json',
    };
    const response = await fetch(`${cast.gateway.url}/v1/decisions`, {
      method: 'POST',
      headers: httpHeaders,
      body: JSON.stringify({ state, questions }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { answers: Record<string, unknown>; model: string };
    expect(body.answers.intent).toEqual({
      type: 'choice',
      choice: 'bug',
      probabilities: { refund: 0.25, bug: 0.75 },
      confidence: 0.75,
    });
    expect(systemOne.requests.at(-1)!.body).toMatchObject({ model: 'jev-latest', state });

    const invalid = await fetch(`${cast.gateway.url}/v1/decisions`, {
      method: 'POST',
      headers: httpHeaders,
      body: JSON.stringify({
        state,
        questions: { q: { type: 'choice', instructions: 'Pick', criteria: [] } },
      }),
    });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(await invalid.json())).toMatch(/questions\.q\.criteria/);

    const dataSource = cast.gateway.running.app.get(DataSource);
    const rows = await waitFor(
      async () => {
        const found = await dataSource.query<Array<Record<string, unknown>>>(
          `SELECT source, operation, identity, provider, model, response_model, input_tokens, status, error_class
             FROM llm_call_audit WHERE operation = 'decide' ORDER BY id`,
        );
        return found.some((row) => row.source === 'http') ? found : undefined;
      },
      { description: 'the audit rows of the decisions' },
    );
    expect(rows.at(-1)).toEqual({
      source: 'http',
      operation: 'decide',
      identity: 'reader',
      provider: 'typesafe',
      model: 'jev-latest',
      response_model: 'jev-1.13.0',
      input_tokens: JSON.stringify(state).length,
      status: 'ok',
      error_class: null,
    });
    expect(
      rows.filter((row) => row.source === 'nats').map((row) => [row.provider, row.status, row.error_class]),
    ).toEqual(
      expect.arrayContaining([
        ['typesafe', 'ok', null],
        ['cloudflare', 'ok', null],
        ['openai', 'ok', null],
        ['typesafe', 'error', 'auth_failed'],
        ['typesafe', 'error', 'provider_outage'],
      ]),
    );
  });
});
