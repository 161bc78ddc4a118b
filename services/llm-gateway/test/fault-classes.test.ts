import {
  createGatewayClient,
  MeshError,
  type AiDecisionQuestions,
  type ChatRequestInput,
  type ProviderError,
} from '@flowmesh/contracts';
import { gatewayChat } from '@flowmesh/gateway-chat';
import { startFakeOpenAI, type FakeOpenAI } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addFaultResources,
  FAULT_GATEWAY_ENV,
  FAULT_KEY,
  QUOTA_EXHAUSTED,
  unknownModel,
} from './support/fault-fixtures.js';
import { startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Seed 001's fault classes through the gateway's NATS interface, against a fake OpenAI speaking
 * its wire protocol: the `error` event of a chat, and the error of `gateway.decide`,
 * `gateway.image.generate`, `gateway.embed` and `gateway.models.list`, say whose fault a failure
 * is, and only the user's own key makes a provider's refusal theirs.
 */

let cast: GatewayCast;
let openai: FakeOpenAI;
const QUESTIONS: AiDecisionQuestions = {
  intent: {
    type: 'choice',
    instructions: 'What does the customer want?',
    criteria: { refund: 'Money back' },
  },
};

beforeAll(async () => {
  cast = await startGatewayCast({ gatewayEnv: FAULT_GATEWAY_ENV });
  openai = await startFakeOpenAI({ apiKey: FAULT_KEY });
  await addFaultResources(cast, openai.url);
});

afterAll(async () => {
  await openai?.close();
  await cast?.stop();
});

async function chatError(resource: string, extra: Partial<ChatRequestInput> = {}): Promise<ProviderError> {
  const chat = await gatewayChat(cast.registry.conn, {
    actor: cast.reader,
    workspace: 'main',
    provider: { kind: 'openai', resource, model: 'gpt-4o-mini' },
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...extra,
  });
  const final = await chat.result;
  if (final.type !== 'error') throw new Error(`expected an error, got ${final.type}`);
  return final.error;
}

describe('fault classes over NATS', () => {
  it("an auth failure on the user's own key is theirs and names the resource whose key to fix", async () => {
    const error = await chatError('f/ai/own_stale');
    expect(error).toMatchObject({ class: 'auth_failed', status: 401, fault: 'user' });
    expect(error.message).toContain('fix the key of the provider resource f/ai/own_stale');
    expect(error.message).not.toContain('sk-stale');
  });

  it('an auth failure on a platform-managed key is ours (a folder or a path listed)', async () => {
    const error = await chatError('f/ai/platform/stale');
    expect(error).toMatchObject({ class: 'auth_failed', fault: 'internal' });
    expect(error.message).not.toContain('fix the key');
  });

  it("billing exhaustion is the user's only by the insufficient_quota marker", async () => {
    openai.reply(QUOTA_EXHAUSTED);
    expect(await chatError('f/ai/own')).toMatchObject({ class: 'quota_exceeded', fault: 'user' });
    // A 500 whose HTML page talks of credits is an outage, never a billing failure.
    openai.reply({
      raw: {
        status: 500,
        headers: { 'content-type': 'text/html' },
        body: '<html><body>Out of credits? 402 insufficient_quota — see billing</body></html>',
      },
    });
    expect(await chatError('f/ai/own')).toMatchObject({ class: 'provider_outage', fault: 'internal' });
  });

  it("a retired model is the user's on their key and ours on the platform's", async () => {
    const retired = {
      error: {
        status: 404,
        message: 'The model `gpt-3.5-turbo-0301` has been deprecated',
        type: 'invalid_request_error',
        code: 'model_not_found',
      },
    };
    openai.reply(retired);
    expect(await chatError('f/ai/own')).toMatchObject({ class: 'model_unavailable', fault: 'user' });
    openai.reply(retired);
    expect(await chatError('f/ai/managed')).toMatchObject({ class: 'model_unavailable', fault: 'internal' });
  });

  it('a 400 for a request we built (a tool name the provider refused) is ours on any key', async () => {
    openai.reply({
      error: {
        status: 400,
        message: "Invalid 'tools[0].function.name': string does not match pattern.",
        type: 'invalid_request_error',
        code: 'invalid_value',
      },
    });
    expect(await chatError('f/ai/own')).toMatchObject({ class: 'bad_request_internal', fault: 'internal' });
  });

  it("a decision on a provider resource that does not exist is the user's, named in details", async () => {
    const error = await createGatewayClient(cast.registry.client)
      .decide({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'openai', resource: 'f/ai/missing', model: 'gpt-6-luna' },
        state: 'I was charged twice!',
        questions: QUESTIONS,
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MeshError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', details: { entity: 'ai_provider', fault: 'user' } });
  });

  it('a decision refused for a stale user key carries the fault in the error details', async () => {
    const error = await createGatewayClient(cast.registry.client)
      .decide({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'openai', resource: 'f/ai/own_stale', model: 'gpt-6-luna' },
        state: 'I was charged twice!',
        questions: QUESTIONS,
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', fault: 'user' },
    });
    expect((error as Error).message).toContain('f/ai/own_stale');
  });
  it("an image refused for a stale key is the user's on their key and ours on the platform's", async () => {
    const draw = (resource: string) =>
      createGatewayClient(cast.registry.client)
        .generateImage({
          actor: cast.reader,
          workspace: 'main',
          provider: { kind: 'openai', resource, model: 'gpt-image-1' },
          prompt: 'A red pixel',
          // Never reached: the provider refuses the key first.
          upload: { url: 'http://127.0.0.1:9/upload' },
        })
        .catch((caught: unknown) => caught);
    const own = await draw('f/ai/own_stale');
    expect(own).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', fault: 'user' },
    });
    expect((own as Error).message).toContain('f/ai/own_stale');
    expect(await draw('f/ai/platform/stale')).toMatchObject({
      details: { class: 'auth_failed', fault: 'internal' },
    });
  });

  const gateway = () => createGatewayClient(cast.registry.client);
  const embed = (resource: string) =>
    gateway()
      .embed({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'openai', resource, model: 'text-embedding-3-small' },
        input: ['Hi'],
      })
      .catch((caught: unknown) => caught);

  it("an embedding refused for a stale key is the user's on their key (named) and ours on the platform's", async () => {
    const own = await embed('f/ai/own_stale');
    expect(own).toBeInstanceOf(MeshError);
    expect(own).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', fault: 'user' },
    });
    expect((own as Error).message).toContain('fix the key of the provider resource f/ai/own_stale');
    expect(await embed('f/ai/platform/stale')).toMatchObject({
      details: { class: 'auth_failed', fault: 'internal' },
    });
  });

  it("an embedding's unknown model and spent account are the user's on their key, ours on the platform's", async () => {
    const unknown = unknownModel('text-embedding-9');
    openai.failEmbeddings(unknown, unknown, QUOTA_EXHAUSTED);
    expect(await embed('f/ai/own')).toMatchObject({
      details: { class: 'model_unavailable', fault: 'user' },
    });
    expect(await embed('f/ai/managed')).toMatchObject({
      details: { class: 'model_unavailable', fault: 'internal' },
    });
    expect(await embed('f/ai/own')).toMatchObject({
      details: { class: 'quota_exceeded', fault: 'user' },
    });
  });

  it("an embedding or model list on a provider resource that does not exist is the user's", async () => {
    expect(await embed('f/ai/missing')).toMatchObject({
      code: 'NOT_FOUND',
      details: { entity: 'ai_provider', fault: 'user' },
    });
  });

  it("a model list refused for a stale key is the user's on their key (named) and ours on the platform's", async () => {
    const list = (resource: string) =>
      gateway()
        .listModels({ actor: cast.reader, workspace: 'main', provider: { kind: 'openai', resource } })
        .catch((caught: unknown) => caught);
    const own = await list('f/ai/own_stale');
    expect(own).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', fault: 'user' },
    });
    expect((own as Error).message).toContain('f/ai/own_stale');
    expect(await list('f/ai/platform/stale')).toMatchObject({
      details: { class: 'auth_failed', fault: 'internal' },
    });
    expect(await list('f/ai/missing')).toMatchObject({
      code: 'NOT_FOUND',
      details: { entity: 'ai_provider', fault: 'user' },
    });
  });
});
