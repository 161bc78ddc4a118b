import type {
  ChatCall,
  NativeCallContext,
  NativeProviderAdapter,
  ProviderStreamEvent,
} from '../provider-adapter.js';
import { ProviderCallError } from '../provider-call.error.js';
import type { ProviderCredentials } from '../provider-credentials.js';
import { resultPieces } from '../shared/result-pieces.js';
import { bedrockClient } from './bedrock-client.factory.js';
import { classifyBedrockError, classifyBedrockException } from './bedrock-error.classifier.js';
import { buildConverseInput } from './bedrock-request.builder.js';
import { parseConverseOutput } from './bedrock-response.parser.js';
import { parseConverseStream } from './bedrock-stream.parser.js';
import { normalizeBedrockUsage } from './bedrock-usage.js';

/**
 * AWS Bedrock through the official SDK: Converse for a whole answer, ConverseStream for a stream,
 * authenticated with the resource's access keys (SigV4) or its Bedrock API key (bearer). The
 * executor guards the pieces like any other provider's, so keepalives, cancellation and the
 * assembler treat a Bedrock stream exactly as an SSE one.
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
          throw classifiedFailure(error, signal);
        });
      yield* resultPieces(parseConverseOutput(output, call, output.$metadata.requestId));
      return;
    }
    const output = await client
      .send(new ConverseStreamCommand(input), { abortSignal: signal })
      .catch((error: unknown) => {
        throw classifiedFailure(error, signal);
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
};

/** A failure before the first event: classified, except an abort, which the executor reports as cancelled. */
function classifiedFailure(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return error;
  // Only a service exception carries `$fault`; a network failure is left to the executor, which names only the host.
  if (typeof error !== 'object' || error === null || !('$fault' in error)) return error;
  return new ProviderCallError({ ...classifyBedrockException(error), provider: 'aws_bedrock' });
}
