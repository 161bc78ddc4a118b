import type {
  ChatCall,
  ListedModel,
  NativeCallContext,
  NativeProviderAdapter,
  ProviderStreamEvent,
} from '../provider-adapter.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import { resultPieces } from '../shared/result-pieces.js';
import { bedrockClient, bedrockControlClient } from './bedrock-client.factory.js';
import { invokeEmbeddings } from './bedrock-embeddings.invoke.js';
import {
  classifiedBedrockFailure,
  classifyBedrockError,
  classifyBedrockException,
} from './bedrock-error.classifier.js';
import { buildConverseInput } from './bedrock-request.builder.js';
import { parseConverseOutput } from './bedrock-response.parser.js';
import { parseConverseStream } from './bedrock-stream.parser.js';
import { normalizeBedrockUsage } from './bedrock-usage.js';

/**
 * AWS Bedrock through the official SDK: Converse for a whole answer, ConverseStream for a stream,
 * authenticated with the resource's access keys (SigV4) or its Bedrock API key (bearer). The
 * executor guards the pieces like any other provider's, so keepalives, cancellation and the
 * assembler treat a Bedrock stream exactly as an SSE one. Embeddings go through `InvokeModel` with
 * the model family's own body (`bedrock-embeddings.codec.ts`), the model list through the control
 * plane's `ListFoundationModels`.
 */
export const bedrockAdapter: NativeProviderAdapter = {
  kind: 'aws_bedrock',
  transport: 'native',
  telemetryName: () => 'aws.bedrock',
  classifyError: classifyBedrockError,
  normalizeUsage: normalizeBedrockUsage,

  async *chat(
    call: ChatCall,
    credentials: ProviderCredentials,
    signal: AbortSignal,
    context?: NativeCallContext,
  ): AsyncIterable<ProviderStreamEvent> {
    const client = await bedrockClient(credentials, context);
    const { ConverseCommand, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
    const input = buildConverseInput(call);
    if (!call.stream) {
      const output = await client
        .send(new ConverseCommand(input), { abortSignal: signal })
        .catch((error: unknown) => {
          throw classifiedBedrockFailure(error, signal);
        });
      yield* resultPieces(parseConverseOutput(output, call, output.$metadata.requestId));
      return;
    }
    const output = await client
      .send(new ConverseStreamCommand(input), { abortSignal: signal })
      .catch((error: unknown) => {
        throw classifiedBedrockFailure(error, signal);
      });
    if (!output.stream) {
      yield {
        type: 'error',
        error: { class: 'provider_outage', message: 'AWS Bedrock answered without a stream' },
      };
      return;
    }
    try {
      yield* parseConverseStream(output.stream, call, output.$metadata.requestId);
    } catch (error) {
      // An exception frame after good events: the SDK throws it from the iterator.
      if (signal.aborted) throw error;
      yield { type: 'error', error: classifyBedrockException(error) };
    }
  },

  embed: invokeEmbeddings,

  async listModels(
    credentials: ProviderCredentials,
    signal: AbortSignal,
    context?: NativeCallContext,
  ): Promise<ListedModel[]> {
    const client = await bedrockControlClient(credentials, context);
    const { ListFoundationModelsCommand } = await import('@aws-sdk/client-bedrock');
    const output = await client
      .send(new ListFoundationModelsCommand({}), { abortSignal: signal })
      .catch((error: unknown) => {
        throw classifiedBedrockFailure(error, signal);
      });
    return (output.modelSummaries ?? []).flatMap((summary) =>
      summary.modelId
        ? [{ id: summary.modelId, ...(summary.providerName ? { ownedBy: summary.providerName } : {}) }]
        : [],
    );
  },
};
