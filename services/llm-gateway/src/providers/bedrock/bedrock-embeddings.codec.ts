import type { EmbeddingsCall } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';

/**
 * Bedrock has no embeddings API of its own: each model family takes its own body through
 * `InvokeModel`. These are the pure transforms for the text families the gateway serves.
 *
 * - Amazon Titan text (`amazon.titan-embed-text-v1`, `-v2:0`, `amazon.titan-embed-g1-text-02`):
 *   one text per call, `{ inputText, dimensions?, normalize? }` → `{ embedding, inputTextTokenCount }`.
 *   Only v2 takes `dimensions` (256, 512, 1024) and `normalize`.
 * - Cohere embed (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, `cohere.embed-v4:0`):
 *   up to 96 texts per call, `{ texts, input_type }` → `{ embeddings }` (an array of vectors, or
 *   `{ float: [...] }` by type). Only v4 takes a dimension (`output_dimension`: 256, 512, 1024, 1536).
 */
export type BedrockEmbeddingFamily =
  | { readonly family: 'titan'; readonly dimensions: readonly number[] | undefined }
  | { readonly family: 'cohere'; readonly dimensions: readonly number[] | undefined };

/** Cohere's limit of texts per call. */
export const COHERE_MAX_TEXTS = 96;
/** Titan calls in flight at once for one request (one text each). */
export const TITAN_CONCURRENCY = 8;
/**
 * What Cohere is told the texts are unless the call says (`inputType`): documents, as
 * OpenAI-style callers embed corpora and queries alike.
 */
const COHERE_INPUT_TYPE = 'search_document';

/**
 * The base model a model id names: an ARN's last segment, without a cross-region inference
 * profile's geography (`us.`, `eu.`, `apac.`, `global.`, ...).
 */
export function bedrockBaseModel(model: string): string {
  const last = model.slice(model.lastIndexOf('/') + 1);
  return last.replace(/^(us|us-gov|eu|apac|ap|ca|jp|au|global)\./, '');
}

/** The family of an embedding model, or a `bad_request_user` error naming the model. */
export function bedrockEmbeddingFamily(model: string): BedrockEmbeddingFamily {
  const base = bedrockBaseModel(model);
  if (/^amazon\.titan-embed-text-v2/.test(base)) return { family: 'titan', dimensions: [256, 512, 1024] };
  if (/^amazon\.titan-embed-(text-v1|g1-text)/.test(base)) return { family: 'titan', dimensions: undefined };
  if (/^cohere\.embed-v4/.test(base)) return { family: 'cohere', dimensions: [256, 512, 1024, 1536] };
  if (/^cohere\.embed-/.test(base)) return { family: 'cohere', dimensions: undefined };
  throw providerCallError(
    'bad_request_user',
    `${model} is not an embedding model the gateway can call on AWS Bedrock: it embeds with Amazon Titan text (amazon.titan-embed-text-*) and Cohere embed (cohere.embed-*) models`,
    { provider: 'aws_bedrock', model },
  );
}

/** Refuses a `dimensions` the model does not take, before any call (Bedrock would blame the request). */
export function checkDimensions(call: EmbeddingsCall, family: BedrockEmbeddingFamily): void {
  if (call.dimensions === undefined) return;
  const allowed = family.dimensions;
  if (allowed?.includes(call.dimensions)) return;
  throw providerCallError(
    'bad_request_user',
    allowed
      ? `${call.model} takes dimensions ${allowed.join(', ')}, not ${call.dimensions}`
      : `${call.model} has a fixed dimension and takes no dimensions`,
    { provider: 'aws_bedrock', model: call.model },
  );
}

/** One Titan body per input text. */
export function titanBody(text: string, call: EmbeddingsCall, family: BedrockEmbeddingFamily): object {
  if (!family.dimensions) return { inputText: text };
  return {
    inputText: text,
    ...(call.dimensions !== undefined ? { dimensions: call.dimensions } : {}),
    // OpenAI's vectors are unit length; v2 normalizes by default, said explicitly.
    normalize: true,
  };
}

/** Cohere bodies, `COHERE_MAX_TEXTS` texts each, in input order. */
export function cohereBodies(call: EmbeddingsCall, family: BedrockEmbeddingFamily): object[] {
  const bodies: object[] = [];
  for (let at = 0; at < call.input.length; at += COHERE_MAX_TEXTS) {
    bodies.push({
      texts: call.input.slice(at, at + COHERE_MAX_TEXTS),
      input_type: call.inputType ?? COHERE_INPUT_TYPE,
      ...(family.dimensions && call.dimensions !== undefined ? { output_dimension: call.dimensions } : {}),
    });
  }
  return bodies;
}

function malformed(call: EmbeddingsCall, what: string) {
  return providerCallError('provider_outage', `AWS Bedrock answered ${call.model} without ${what}`, {
    provider: 'aws_bedrock',
    model: call.model,
  });
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'number');
}

/** A Titan answer: the vector and its token count (absent on some answers: then the header's). */
export function parseTitanResponse(
  json: unknown,
  call: EmbeddingsCall,
): { embedding: number[]; inputTokens: number | undefined } {
  const body = (typeof json === 'object' && json !== null ? json : {}) as {
    embedding?: unknown;
    embeddingsByType?: { float?: unknown };
    inputTextTokenCount?: unknown;
  };
  const embedding = isVector(body.embedding) ? body.embedding : body.embeddingsByType?.float;
  if (!isVector(embedding)) throw malformed(call, 'an embedding');
  return {
    embedding,
    inputTokens: typeof body.inputTextTokenCount === 'number' ? body.inputTextTokenCount : undefined,
  };
}

/** A Cohere answer: one vector per text, whether `embeddings` is a list or by type. */
export function parseCohereResponse(json: unknown, call: EmbeddingsCall, texts: number): number[][] {
  const body = (typeof json === 'object' && json !== null ? json : {}) as { embeddings?: unknown };
  const raw = body.embeddings;
  const vectors = Array.isArray(raw) ? raw : (raw as { float?: unknown } | undefined)?.float;
  if (!Array.isArray(vectors) || vectors.length !== texts || !vectors.every(isVector)) {
    throw malformed(call, `${texts} float embeddings`);
  }
  return vectors;
}
