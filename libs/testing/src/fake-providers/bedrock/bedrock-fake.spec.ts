import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ThrottlingException,
  ValidationException,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockContextExceededReply, startFakeBedrock, type FakeBedrock } from './bedrock-fake.server.js';

// The official SDK is the judge: it decodes the event-stream framing, CRCs and all.
describe('fake Bedrock runtime, checked with @aws-sdk/client-bedrock-runtime', () => {
  let fake: FakeBedrock;
  let client: BedrockRuntimeClient;

  beforeAll(async () => {
    fake = await startFakeBedrock({
      accessKeyId: 'AKIDFAKE',
      region: 'eu-west-1',
      bearerToken: 'bedrock-api-key',
    });
    client = new BedrockRuntimeClient({
      region: 'eu-west-1',
      endpoint: fake.url,
      credentials: { accessKeyId: 'AKIDFAKE', secretAccessKey: 'secret' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    client.destroy();
    await fake.close();
  });

  const user = [{ role: 'user' as const, content: [{ text: 'Weather in Paris?' }] }];

  it('answers Converse with content, stop reason and cache usage, signed with SigV4', async () => {
    fake.reply({
      content: [{ text: 'Sunny.' }],
      usage: { inputTokens: 12, outputTokens: 2, cacheReadInputTokens: 30 },
    });
    const output = await client.send(
      new ConverseCommand({ modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', messages: user }),
    );
    expect(output.output?.message?.content).toEqual([{ text: 'Sunny.' }]);
    expect(output.stopReason).toBe('end_turn');
    expect(output.usage).toMatchObject({
      inputTokens: 12,
      outputTokens: 2,
      cacheReadInputTokens: 30,
      cacheWriteInputTokens: 0,
    });
    const request = fake.lastRequest();
    expect(request.path).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(request.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/eu-west-1\/bedrock\/aws4_request/,
    );
  });

  it('streams event frames the SDK decodes: text, tool use with input fragments, reasoning, metadata', async () => {
    fake.reply({
      content: [
        { reasoningContent: { reasoningText: { text: 'Think first.', signature: 'sig-b' } } },
        { text: 'Let me check.' },
        { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
      ],
      usage: { inputTokens: 40, outputTokens: 9 },
      deltaSize: 5,
    });
    const output = await client.send(new ConverseStreamCommand({ modelId: 'm1', messages: user }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of output.stream ?? []) events.push(event);
    const kinds = events.map((event) => Object.keys(event).find((key) => key !== '$unknown'));
    expect(kinds[0]).toBe('messageStart');
    expect(kinds.slice(-2)).toEqual(['messageStop', 'metadata']);
    expect(kinds.filter((kind) => kind === 'contentBlockStart')).toHaveLength(1);
    const toolInput = events
      .flatMap((event) =>
        event.contentBlockDelta?.delta?.toolUse ? [event.contentBlockDelta.delta.toolUse.input] : [],
      )
      .join('');
    expect(JSON.parse(toolInput)).toEqual({ city: 'Paris' });
    const signature = events.find((event) => event.contentBlockDelta?.delta?.reasoningContent?.signature);
    expect(signature?.contentBlockDelta?.delta?.reasoningContent?.signature).toBe('sig-b');
    expect(events.at(-1)?.metadata?.usage).toMatchObject({ inputTokens: 40, outputTokens: 9 });
    expect(fake.lastRequest().path).toBe('/model/m1/converse-stream');
  });

  it('raises an in-stream exception frame as the SDK exception after the good events', async () => {
    fake.reply({
      streamThenFail: {
        turn: { content: [{ text: 'abcdefghijklmnop' }] },
        afterEvents: 3,
        exceptionType: 'throttlingException',
        message: 'Too many requests, please wait.',
      },
    });
    const output = await client.send(new ConverseStreamCommand({ modelId: 'm1', messages: user }));
    const seen: ConverseStreamOutput[] = [];
    const failure = await (async () => {
      for await (const event of output.stream ?? []) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen).toHaveLength(3);
    expect(failure).toBeInstanceOf(ThrottlingException);
  });

  it('sends the context-window error as a ValidationException', async () => {
    fake.reply(bedrockContextExceededReply());
    const error = await client
      .send(new ConverseCommand({ modelId: 'm1', messages: user }))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as ValidationException).message).toBe('Input is too long for requested model.');
    expect((error as ValidationException).$metadata.httpStatusCode).toBe(400);
  });

  it('accepts a bearer API key and refuses a wrong one', async () => {
    const bearer = (token: string) =>
      new BedrockRuntimeClient({
        region: 'eu-west-1',
        endpoint: fake.url,
        token: { token },
        authSchemePreference: ['httpBearerAuth'],
        requestHandler: new NodeHttpHandler(),
        maxAttempts: 1,
      });
    fake.reply({ content: [{ text: 'ok' }] });
    const good = bearer('bedrock-api-key');
    await good.send(new ConverseCommand({ modelId: 'm1', messages: user }));
    expect(fake.lastRequest().headers.authorization).toBe('Bearer bedrock-api-key');
    const bad = bearer('wrong');
    await expect(bad.send(new ConverseCommand({ modelId: 'm1', messages: user }))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
    good.destroy();
    bad.destroy();
  });

  it('refuses tool results that do not answer the previous tool uses, as Bedrock does', async () => {
    const error = await client
      .send(
        new ConverseCommand({
          modelId: 'm1',
          messages: [
            ...user,
            {
              role: 'assistant',
              content: [{ toolUse: { toolUseId: 't1', name: 'get_weather', input: {} } }],
            },
            { role: 'user', content: [{ text: 'no result' }] },
          ],
          toolConfig: {
            tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }],
          },
        }),
      )
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      'Expected toolResult blocks at messages.2.content for the following Ids: t1',
    );
  });
});
