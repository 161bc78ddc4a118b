import { BedrockClient, ListFoundationModelsCommand } from '@aws-sdk/client-bedrock';
import {
  BedrockRuntimeClient,
  InvokeModelCommand,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBedrock, type FakeBedrock } from './bedrock-fake.server.js';

// The official SDKs judge the wire: InvokeModel's raw body and ListFoundationModels' JSON.
describe('fake Bedrock InvokeModel and ListFoundationModels, checked with the AWS SDK', () => {
  let fake: FakeBedrock;
  let runtime: BedrockRuntimeClient;
  let control: BedrockClient;

  beforeAll(async () => {
    fake = await startFakeBedrock({ accessKeyId: 'AKIDFAKE', region: 'eu-west-1' });
    const config = {
      region: 'eu-west-1',
      endpoint: fake.url,
      credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'secret' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    };
    runtime = new BedrockRuntimeClient(config);
    control = new BedrockClient(config);
  });
  afterAll(async () => {
    runtime.destroy();
    control.destroy();
    await fake.close();
  });

  const invoke = (modelId: string, body: unknown) =>
    runtime.send(
      new InvokeModelCommand({
        modelId,
        contentType: 'application/json',
        accept: 'application/json',
        body: new TextEncoder().encode(JSON.stringify(body)),
      }),
    );

  it('answers Titan v2 with its own body and the token count header', async () => {
    fake.replyInvoke({ embeddings: [[0.1, 0.2]], inputTokens: 3 });
    const output = await invoke('amazon.titan-embed-text-v2:0', { inputText: 'hello', dimensions: 256 });
    expect(JSON.parse(new TextDecoder().decode(output.body))).toEqual({
      embedding: [0.1, 0.2],
      embeddingsByType: { float: [0.1, 0.2] },
      inputTextTokenCount: 3,
    });
    expect(output.contentType).toBe('application/json');
    expect(fake.lastRequest().path).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
  });

  it("refuses a key the model does not take, in Bedrock's words", async () => {
    const error = await invoke('amazon.titan-embed-text-v1', { inputText: 'x', dimensions: 256 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as Error).message).toContain('extraneous key [dimensions] is not permitted');
    const cohere = await invoke('cohere.embed-english-v3', { texts: ['a'] }).catch(
      (caught: unknown) => caught,
    );
    expect((cohere as Error).message).toContain('required key [input_type] not found');
  });

  it('answers Cohere v3 with floats, and v4 by type', async () => {
    fake.replyInvoke({ embeddings: [[1], [2]] }, { embeddings: [[3]] });
    const v3 = await invoke('cohere.embed-english-v3', {
      texts: ['ab', 'cd'],
      input_type: 'search_document',
    });
    expect(JSON.parse(new TextDecoder().decode(v3.body))).toMatchObject({
      texts: ['ab', 'cd'],
      embeddings: [[1], [2]],
      response_type: 'embeddings_floats',
    });
    const v4 = await invoke('cohere.embed-v4:0', { texts: ['ab'], input_type: 'search_query' });
    expect(JSON.parse(new TextDecoder().decode(v4.body))).toMatchObject({
      embeddings: { float: [[3]] },
      response_type: 'embeddings_by_type',
    });
  });

  it('lists foundation models, filtered by the query', async () => {
    fake.setFoundationModels([
      { modelId: 'amazon.titan-embed-text-v2:0', providerName: 'Amazon', outputModalities: ['EMBEDDING'] },
      { modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', providerName: 'Anthropic' },
    ]);
    const all = await control.send(new ListFoundationModelsCommand({}));
    expect(all.modelSummaries?.map((model) => model.modelId)).toEqual([
      'amazon.titan-embed-text-v2:0',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
    ]);
    expect(all.modelSummaries?.[0]).toMatchObject({
      modelArn: 'arn:aws:bedrock:eu-west-1::foundation-model/amazon.titan-embed-text-v2:0',
      providerName: 'Amazon',
      modelLifecycle: { status: 'ACTIVE' },
    });
    const embeddings = await control.send(new ListFoundationModelsCommand({ byOutputModality: 'EMBEDDING' }));
    expect(embeddings.modelSummaries?.map((model) => model.modelId)).toEqual([
      'amazon.titan-embed-text-v2:0',
    ]);
    expect(fake.lastRequest()).toMatchObject({
      method: 'GET',
      path: '/foundation-models',
      query: { byOutputModality: 'EMBEDDING' },
    });
    expect(fake.lastRequest().headers.authorization).toMatch(
      /Credential=AKIDFAKE\/\d{8}\/eu-west-1\/bedrock\//,
    );
  });
});
