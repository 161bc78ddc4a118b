import type { InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import type { EmbeddingsCall, EmbeddingsResult, NativeCallContext } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import { bedrockClient } from './bedrock-client.factory.js';
import {
  bedrockEmbeddingFamily,
  checkDimensions,
  cohereBodies,
  parseCohereResponse,
  parseTitanResponse,
  TITAN_CONCURRENCY,
  titanBody,
} from './bedrock-embeddings.codec.js';
import { classifiedBedrockFailure } from './bedrock-error.classifier.js';

/** What one `InvokeModel` call gave back: the parsed JSON body and Bedrock's input token count header. */
interface Invoked {
  readonly json: unknown;
  readonly inputTokens: number | undefined;
}

/**
 * Embeddings through `InvokeModel`: Titan one text per call (at most `TITAN_CONCURRENCY` in
 * flight), Cohere in batches of 96; vectors in input order, input tokens summed (the body's
 * count where the model gives one, else `x-amzn-bedrock-input-token-count`). The first failure
 * aborts the calls still running and is the answer.
 */
export async function invokeEmbeddings(
  call: EmbeddingsCall,
  credentials: ProviderCredentials,
  signal: AbortSignal,
  context?: NativeCallContext,
): Promise<EmbeddingsResult> {
  const family = bedrockEmbeddingFamily(call.model);
  checkDimensions(call, family);
  const client = await bedrockClient(credentials, context);
  const { InvokeModelCommand } = await import('@aws-sdk/client-bedrock-runtime');
  const siblings = new AbortController();
  const onAbort = () => siblings.abort();
  signal.addEventListener('abort', onAbort, { once: true });

  const invoke = async (body: object): Promise<Invoked> => {
    const command = new InvokeModelCommand({
      modelId: call.model,
      contentType: 'application/json',
      accept: 'application/json',
      body: new TextEncoder().encode(JSON.stringify(body)),
    });
    let headerTokens: number | undefined;
    readInputTokenHeader(command, (tokens) => (headerTokens = tokens));
    const output = await client.send(command, { abortSignal: siblings.signal }).catch((error: unknown) => {
      throw classifiedBedrockFailure(error, signal);
    });
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(output.body)) as unknown;
    } catch {
      throw providerCallError(
        'provider_outage',
        `AWS Bedrock answered ${call.model} with a body that is not JSON`,
        {
          provider: 'aws_bedrock',
          model: call.model,
        },
      );
    }
    return { json, inputTokens: headerTokens };
  };

  try {
    if (family.family === 'titan') {
      const answers = await mapBounded(call.input, TITAN_CONCURRENCY, siblings, async (text) => {
        const invoked = await invoke(titanBody(text, call, family));
        const parsed = parseTitanResponse(invoked.json, call);
        return { embedding: parsed.embedding, inputTokens: parsed.inputTokens ?? invoked.inputTokens ?? 0 };
      });
      return {
        embeddings: answers.map((answer) => answer.embedding),
        model: call.model,
        inputTokens: answers.reduce((sum, answer) => sum + answer.inputTokens, 0),
      };
    }
    const batches = cohereBodies(call, family);
    const answers = await mapBounded(batches, TITAN_CONCURRENCY, siblings, async (body) => {
      const invoked = await invoke(body);
      const texts = (body as { texts: readonly string[] }).texts.length;
      return {
        embeddings: parseCohereResponse(invoked.json, call, texts),
        inputTokens: invoked.inputTokens ?? 0,
      };
    });
    return {
      embeddings: answers.flatMap((answer) => answer.embeddings),
      model: call.model,
      inputTokens: answers.reduce((sum, answer) => sum + answer.inputTokens, 0),
    };
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `x-amzn-bedrock-input-token-count` of the answer, read as the response is deserialized. */
function readInputTokenHeader(command: InvokeModelCommand, found: (tokens: number) => void): void {
  command.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const headers = (result.response as { headers?: Record<string, string | undefined> }).headers ?? {};
      const value = Object.entries(headers).find(
        ([name]) => name.toLowerCase() === 'x-amzn-bedrock-input-token-count',
      )?.[1];
      const tokens = value === undefined ? NaN : Number(value);
      if (Number.isFinite(tokens)) found(tokens);
      return result;
    },
    { step: 'deserialize', name: 'flowmeshInputTokenCount' },
  );
}

/**
 * `task` over `items` with at most `limit` running, results in item order. The first failure (in
 * time) aborts `siblings`, the calls still running, and is thrown once they have stopped.
 */
async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  siblings: AbortController,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index]);
      } catch (error) {
        if (!failed) {
          failed = true;
          firstError = error;
          siblings.abort();
        }
        return;
      }
    }
  };
  const workers = Array.from({ length: Math.min(limit, items.length) }, worker);
  await Promise.all(workers);
  if (failed) throw firstError;
  return results;
}
