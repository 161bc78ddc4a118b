import { createGatewayClient, MeshError, type GatewayClient } from '@flowmesh/contracts';
import { startFakeBedrock, type FakeBedrock, type RecordedRequest } from '@flowmesh/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockResources, startGatewayCast, type GatewayCast } from './support/gateway-cast.js';

/**
 * Bedrock embeddings (InvokeModel with Titan's and Cohere's own bodies) and the model list
 * (ListFoundationModels on the control plane) through every public surface: `gateway.embed` and
 * `gateway.listModels` over NATS, `/v1/embeddings` and `/v1/models` with the official `openai`
 * SDK, and the workspace proxy's translated `embeddings` and `models`. The fake speaks Bedrock's
 * wire protocol, so the AWS SDKs inside the gateway are what is tested.
 */

const BEDROCK_KEY = 'bedrock-embed-api-key-0123456789';
const AWS_KEY_ID = 'AKIAEMBEDTEST0001';
const AWS_SECRET = 'embed-secret-access-key-abcdef';
const TITAN_V2 = 'amazon.titan-embed-text-v2:0';
const COHERE_V3 = 'cohere.embed-english-v3';
const COHERE_V4 = 'cohere.embed-v4:0';

let cast: GatewayCast;
let gateway: GatewayClient;
let bedrock: FakeBedrock;

/** A vector float32 holds exactly, distinct per text. */
const vectorOf = (text: string) => [text.length, 0.5, -0.25, text.charCodeAt(0)];

const bodyOf = (request: RecordedRequest) => JSON.parse(request.rawBody) as Record<string, unknown>;

const openai = (resource: string, baseURL = `${cast.gateway.url}/v1`) =>
  new OpenAI({
    apiKey: cast.reader.token,
    baseURL,
    defaultHeaders: cast.headers(resource),
    maxRetries: 0,
  });

beforeAll(async () => {
  [cast, bedrock] = await Promise.all([
    startGatewayCast({
      gatewayEnv: { FLOWMESH_GATEWAY_EXTRA_HEADERS: 'X-Team: platform', FLOWMESH_GATEWAY_RETRY_BASE_MS: '5' },
    }),
    startFakeBedrock({ accessKeyId: AWS_KEY_ID, region: 'eu-west-1', bearerToken: BEDROCK_KEY }),
  ]);
  gateway = createGatewayClient(cast.registry.client);
  await bedrockResources(cast, bedrock.url, {
    bearerToken: BEDROCK_KEY,
    accessKeyId: AWS_KEY_ID,
    secretAccessKey: AWS_SECRET,
  });
  await cast.providerResource(
    'f/ai/bedrock_wrong',
    'aws_bedrock',
    { region: 'eu-west-1', base_url: bedrock.url },
    'bedrock-wrong-key-9876543210',
  );
});

afterAll(async () => {
  await bedrock?.close();
  await cast?.stop();
});

/** The requests the fake got since `from`, for one path. */
const since = (from: number, path: string) => bedrock.requests.slice(from).filter((r) => r.path === path);

describe('Bedrock embeddings', () => {
  it('Titan v2 over NATS: one signed InvokeModel per input with dimensions and normalize, vectors in input order, tokens summed', async () => {
    const from = bedrock.requests.length;
    bedrock.setDefaultInvokeReply((request) => {
      const text = String(bodyOf(request).inputText);
      return { embeddings: [vectorOf(text)], inputTokens: text.length };
    });
    const input = ['alpha', 'be', 'gamma ray', 'd', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
    const reply = await gateway.embed({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'aws_bedrock', resource: 'f/ai/bedrock_keys', model: TITAN_V2 },
      input,
      dimensions: 256,
    });
    bedrock.setDefaultInvokeReply(undefined);
    expect(reply).toEqual({
      embeddings: input.map(vectorOf),
      model: TITAN_V2,
      usage: { inputTokens: input.join('').length },
    });
    const sent = since(from, '/model/amazon.titan-embed-text-v2%3A0/invoke');
    expect(sent).toHaveLength(input.length);
    expect(sent.map(bodyOf).sort((a, b) => String(a.inputText).localeCompare(String(b.inputText)))).toEqual(
      [...input].sort().map((inputText) => ({ inputText, dimensions: 256, normalize: true })),
    );
    for (const request of sent) {
      expect(request.method).toBe('POST');
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        accept: 'application/json',
        'x-team': 'platform',
      });
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIAEMBEDTEST0001\/\d{8}\/eu-west-1\/bedrock\/aws4_request/,
      );
    }
  });

  it('refuses an unknown embedding family and a dimension the model does not take, naming the model, before any call', async () => {
    const from = bedrock.requests.length;
    const unknown = await gateway
      .embed({
        actor: cast.reader,
        workspace: 'main',
        provider: {
          kind: 'aws_bedrock',
          resource: 'f/ai/bedrock_keys',
          model: 'meta.llama3-8b-instruct-v1:0',
        },
        input: ['a'],
      })
      .catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(MeshError);
    expect(unknown).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('meta.llama3-8b-instruct-v1:0') as unknown,
      details: { class: 'bad_request_user', provider: 'aws_bedrock' },
    });
    const fixed = await openai('f/ai/bedrock_bearer')
      .embeddings.create({ model: 'amazon.titan-embed-text-v1', input: 'a', dimensions: 256 })
      .catch((caught: unknown) => caught);
    expect(fixed).toBeInstanceOf(OpenAI.BadRequestError);
    expect((fixed as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
      'amazon.titan-embed-text-v1 has a fixed dimension',
    );
    expect(bedrock.requests.length).toBe(from);
  });

  it('Cohere v3 over HTTP with the openai SDK: batches of 96 with input_type, bearer key and resource headers, floats and base64', async () => {
    const from = bedrock.requests.length;
    bedrock.setDefaultInvokeReply((request) => {
      const texts = bodyOf(request).texts as string[];
      return { embeddings: texts.map(vectorOf), inputTokens: texts.length * 2 };
    });
    const input = Array.from({ length: 100 }, (_, index) => `text number ${index}`);
    const floats = await openai('f/ai/bedrock_bearer').embeddings.create({
      model: COHERE_V3,
      input,
      encoding_format: 'float',
    });
    expect(floats.data.map((item) => item.embedding)).toEqual(input.map(vectorOf));
    expect(floats.data.map((item) => item.index)).toEqual(input.map((_, index) => index));
    expect(floats.model).toBe(COHERE_V3);
    expect(floats.usage).toEqual({ prompt_tokens: 200, total_tokens: 200 });
    const batches = since(from, '/model/cohere.embed-english-v3/invoke');
    expect(
      batches.map(bodyOf).sort((a, b) => (b.texts as string[]).length - (a.texts as string[]).length),
    ).toEqual([
      { texts: input.slice(0, 96), input_type: 'search_document' },
      { texts: input.slice(96), input_type: 'search_document' },
    ]);
    for (const request of batches) {
      expect(request.headers).toMatchObject({
        authorization: `Bearer ${BEDROCK_KEY}`,
        'x-resource': 'r1',
        'x-team': 'platform',
      });
    }

    // The SDK asks for base64 by default and decodes it back into floats.
    const decoded = await openai('f/ai/bedrock_bearer').embeddings.create({
      model: COHERE_V3,
      input: 'hello',
    });
    expect(decoded.data[0]?.embedding).toEqual(vectorOf('hello'));
    expect(bodyOf(bedrock.lastRequest())).toEqual({ texts: ['hello'], input_type: 'search_document' });

    // A query says so (Cohere's input_type, not OpenAI's: the SDK passes it through).
    await openai('f/ai/bedrock_bearer').embeddings.create({
      model: COHERE_V3,
      input: 'where is it?',
      encoding_format: 'float',
      input_type: 'search_query',
    } as OpenAI.EmbeddingCreateParams);
    bedrock.setDefaultInvokeReply(undefined);
    expect(bodyOf(bedrock.lastRequest())).toEqual({ texts: ['where is it?'], input_type: 'search_query' });
    const requests = bedrock.requests.length;
    const wrong = await openai('f/ai/bedrock_bearer')
      .embeddings.create({
        model: COHERE_V3,
        input: 'x',
        input_type: 'query',
      } as OpenAI.EmbeddingCreateParams)
      .catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((wrong as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('input_type');
    expect(bedrock.requests.length).toBe(requests);
  });

  it('Cohere over NATS: inputType is what Cohere is told the texts are', async () => {
    bedrock.replyInvoke({ embeddings: [vectorOf('group me')], inputTokens: 2 });
    const reply = await gateway.embed({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'aws_bedrock', resource: 'f/ai/bedrock_keys', model: COHERE_V3 },
      input: ['group me'],
      inputType: 'clustering',
    });
    expect(reply.embeddings).toEqual([vectorOf('group me')]);
    expect(bodyOf(bedrock.lastRequest())).toEqual({ texts: ['group me'], input_type: 'clustering' });
  });

  it('Cohere v4 through the workspace proxy: dimensions become output_dimension, the by-type answer is read', async () => {
    bedrock.replyInvoke({ embeddings: [vectorOf('one'), vectorOf('three')], inputTokens: 7 });
    const reply = await openai(
      'f/ai/bedrock_bearer',
      `${cast.gateway.url}/api/w/main/ai/proxy`,
    ).embeddings.create({
      model: `us.${COHERE_V4}`,
      input: ['one', 'three'],
      dimensions: 512,
      encoding_format: 'float',
    });
    expect(reply.data.map((item) => item.embedding)).toEqual([vectorOf('one'), vectorOf('three')]);
    expect(reply.usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
    expect(bedrock.lastRequest().path).toBe('/model/us.cohere.embed-v4%3A0/invoke');
    expect(bodyOf(bedrock.lastRequest())).toEqual({
      texts: ['one', 'three'],
      input_type: 'search_document',
      output_dimension: 512,
    });
  });

  it('classifies a Bedrock failure: a too-long input is a context overflow, not retried; a refused key is auth_failed without the key', async () => {
    const from = bedrock.requests.length;
    bedrock.replyInvoke({
      error: { status: 400, type: 'ValidationException', message: 'Input is too long for requested model.' },
    });
    const overflow = await gateway
      .embed({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'aws_bedrock', resource: 'f/ai/bedrock_keys', model: TITAN_V2 },
        input: ['long'],
      })
      .catch((caught: unknown) => caught);
    expect(overflow).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      details: { class: 'context_window_exceeded', status: 400, providerCode: 'ValidationException' },
    });
    expect(bedrock.requests.length).toBe(from + 1);

    const refused = await openai('f/ai/bedrock_wrong')
      .embeddings.create({ model: TITAN_V2, input: 'x', encoding_format: 'float' })
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(JSON.stringify((refused as InstanceType<typeof OpenAI.AuthenticationError>).error)).not.toContain(
      'wrong-key',
    );
  });
});

describe('Bedrock model list', () => {
  beforeAll(() => {
    bedrock.setFoundationModels([
      { modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', providerName: 'Anthropic' },
      { modelId: TITAN_V2, providerName: 'Amazon', outputModalities: ['EMBEDDING'] },
      { modelId: COHERE_V3, providerName: 'Cohere', outputModalities: ['EMBEDDING'] },
    ]);
  });

  it('gateway.listModels: ListFoundationModels signed with the access keys, each with the table window when known', async () => {
    const reply = await gateway.listModels({
      actor: cast.reader,
      workspace: 'main',
      provider: { kind: 'aws_bedrock', resource: 'f/ai/bedrock_keys' },
    });
    expect(reply.models).toEqual([
      { id: 'anthropic.claude-3-5-sonnet-20240620-v1:0', ownedBy: 'Anthropic', contextWindow: 200_000 },
      { id: TITAN_V2, ownedBy: 'Amazon' },
      { id: COHERE_V3, ownedBy: 'Cohere' },
    ]);
    const request = bedrock.lastRequest();
    expect(request).toMatchObject({ method: 'GET', path: '/foundation-models', query: {}, rawBody: '' });
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAEMBEDTEST0001\/\d{8}\/eu-west-1\/bedrock\/aws4_request/,
    );
    expect(request.headers['x-team']).toBe('platform');
  });

  it("GET /v1/models and the proxy's models with the openai SDK: OpenAI's shape, bearer key", async () => {
    const direct = [];
    for await (const model of openai('f/ai/bedrock_bearer').models.list()) direct.push(model);
    expect(direct).toEqual([
      { id: 'anthropic.claude-3-5-sonnet-20240620-v1:0', object: 'model', created: 0, owned_by: 'Anthropic' },
      { id: TITAN_V2, object: 'model', created: 0, owned_by: 'Amazon' },
      { id: COHERE_V3, object: 'model', created: 0, owned_by: 'Cohere' },
    ]);
    expect(bedrock.lastRequest().headers).toMatchObject({
      authorization: `Bearer ${BEDROCK_KEY}`,
      'x-resource': 'r1',
    });
    const proxied = [];
    for await (const model of openai(
      'f/ai/bedrock_bearer',
      `${cast.gateway.url}/api/w/main/ai/proxy`,
    ).models.list())
      proxied.push(model.id);
    expect(proxied).toEqual(direct.map((model) => model.id));
  });

  it('a refused list is auth_failed over NATS, never quoting the key', async () => {
    bedrock.replyModels({
      error: {
        status: 403,
        type: 'UnrecognizedClientException',
        message: 'The security token included in the request is invalid.',
      },
    });
    const error = await gateway
      .listModels({
        actor: cast.reader,
        workspace: 'main',
        provider: { kind: 'aws_bedrock', resource: 'f/ai/bedrock_keys' },
      })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { class: 'auth_failed', status: 403, provider: 'aws_bedrock' },
    });
    const envelope = JSON.stringify((error as MeshError).toEnvelope());
    expect(envelope).not.toContain(AWS_SECRET);
    expect(envelope).not.toContain('security token included');
  });
});
