import { randomUUID } from 'node:crypto';
import type { BedrockFakeEmbeddingReply, BedrockFakeModelSummary } from './bedrock-fake.types.js';

/**
 * `InvokeModel` for the embedding families, as Bedrock checks and answers them: the body each
 * family takes (Bedrock's own "Malformed input request" wording for a key it does not take), and
 * the body each family answers with.
 */

type Json = Record<string, unknown>;

type Family = 'titan-v1' | 'titan-v2' | 'cohere-v3' | 'cohere-v4';

function familyOf(modelId: string): Family | undefined {
  const base = modelId.slice(modelId.lastIndexOf('/') + 1).replace(/^(us|eu|apac|global)\./, '');
  if (/^amazon\.titan-embed-text-v2/.test(base)) return 'titan-v2';
  if (/^amazon\.titan-embed-(text-v1|g1-text)/.test(base)) return 'titan-v1';
  if (/^cohere\.embed-v4/.test(base)) return 'cohere-v4';
  if (/^cohere\.embed-(english|multilingual)-v3/.test(base)) return 'cohere-v3';
  return undefined;
}

const malformed = (detail: string) =>
  `Malformed input request: ${detail}, please reformat your input and try again.`;

const KEYS: Record<Family, { required: string[]; optional: string[] }> = {
  'titan-v1': { required: ['inputText'], optional: [] },
  'titan-v2': { required: ['inputText'], optional: ['dimensions', 'normalize', 'embeddingTypes'] },
  'cohere-v3': { required: ['texts', 'input_type'], optional: ['truncate', 'embedding_types', 'images'] },
  'cohere-v4': {
    required: ['input_type'],
    optional: ['texts', 'images', 'inputs', 'truncate', 'embedding_types', 'output_dimension', 'max_tokens'],
  },
};
const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];

/** Why Bedrock would refuse this body for this model (a `ValidationException` message), or undefined. */
export function validateInvokeBody(
  modelId: string,
  contentType: string | undefined,
  body: unknown,
): string | undefined {
  if (contentType !== undefined && !contentType.startsWith('application/json'))
    return `The provided content type ${contentType} is not supported for this model.`;
  const family = familyOf(modelId);
  if (!family) return undefined;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return malformed('#: expected type: JSONObject');
  const json = body as Json;
  const { required, optional } = KEYS[family];
  for (const key of required) if (!(key in json)) return malformed(`#: required key [${key}] not found`);
  for (const key of Object.keys(json)) {
    if (!required.includes(key) && !optional.includes(key))
      return malformed(`#: extraneous key [${key}] is not permitted`);
  }
  if (family.startsWith('titan')) {
    if (typeof json.inputText !== 'string') return malformed('#/inputText: expected type: String');
    if (json.inputText.length === 0) return malformed('#/inputText: expected minLength: 1, actual: 0');
    if (json.dimensions !== undefined && ![256, 512, 1024].includes(json.dimensions as number))
      return malformed(`#/dimensions: ${JSON.stringify(json.dimensions)} is not a valid enum value`);
    if (json.normalize !== undefined && typeof json.normalize !== 'boolean')
      return malformed('#/normalize: expected type: Boolean');
    return undefined;
  }
  if (!INPUT_TYPES.includes(json.input_type as string))
    return malformed(`#/input_type: ${String(json.input_type)} is not a valid enum value`);
  if (json.texts !== undefined) {
    if (!Array.isArray(json.texts) || !json.texts.every((text) => typeof text === 'string'))
      return malformed('#/texts: expected type: JSONArray of String');
    if (json.texts.length > 96)
      return malformed(`#/texts: expected maximum item count: 96, found: ${json.texts.length}`);
  }
  if (
    json.output_dimension !== undefined &&
    ![256, 512, 1024, 1536].includes(json.output_dimension as number)
  )
    return malformed(
      `#/output_dimension: ${JSON.stringify(json.output_dimension)} is not a valid enum value`,
    );
  return undefined;
}

/** The texts an embedding call carried, in order (Titan: one). */
function textsOf(body: unknown): string[] {
  const json = (typeof body === 'object' && body !== null ? body : {}) as Json;
  if (typeof json.inputText === 'string') return [json.inputText];
  return Array.isArray(json.texts) ? json.texts.map(String) : [];
}

/** Bedrock's input token count of a call, when a test does not say: one per 4 characters, at least 1 per text. */
export function estimateTokens(body: unknown): number {
  return textsOf(body).reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
}

/** The family's answer body for a scripted embedding reply. */
export function renderEmbeddingBody(
  modelId: string,
  requestBody: unknown,
  reply: BedrockFakeEmbeddingReply,
  inputTokens: number,
): Json {
  const family = familyOf(modelId);
  const [first = []] = reply.embeddings;
  switch (family) {
    case 'titan-v1':
      return { embedding: first, inputTextTokenCount: inputTokens };
    case 'titan-v2':
      return { embedding: first, embeddingsByType: { float: first }, inputTextTokenCount: inputTokens };
    case 'cohere-v4':
      return {
        id: randomUUID(),
        texts: textsOf(requestBody),
        embeddings: { float: reply.embeddings },
        response_type: 'embeddings_by_type',
      };
    default:
      return {
        id: randomUUID(),
        texts: textsOf(requestBody),
        embeddings: reply.embeddings,
        response_type: 'embeddings_floats',
      };
  }
}

/** `ListFoundationModels`' answer: the summaries with every field Bedrock fills, filtered as the query asks. */
export function renderFoundationModels(
  models: readonly BedrockFakeModelSummary[],
  query: Readonly<Record<string, string>>,
  region: string,
): Json {
  const summaries = models.map((model) => ({
    modelArn: `arn:aws:bedrock:${region}::foundation-model/${model.modelId}`,
    modelId: model.modelId,
    modelName: model.modelName ?? model.modelId,
    providerName: model.providerName,
    inputModalities: model.inputModalities ?? ['TEXT'],
    outputModalities: model.outputModalities ?? ['TEXT'],
    responseStreamingSupported: model.responseStreamingSupported ?? true,
    customizationsSupported: model.customizationsSupported ?? [],
    inferenceTypesSupported: model.inferenceTypesSupported ?? ['ON_DEMAND'],
    modelLifecycle: model.modelLifecycle ?? { status: 'ACTIVE' },
  }));
  const filtered = summaries.filter(
    (summary) =>
      (query.byProvider === undefined ||
        summary.providerName.toLowerCase() === query.byProvider.toLowerCase()) &&
      (query.byOutputModality === undefined ||
        summary.outputModalities.includes(query.byOutputModality as 'TEXT')) &&
      (query.byInferenceType === undefined ||
        summary.inferenceTypesSupported.includes(query.byInferenceType as 'ON_DEMAND')) &&
      (query.byCustomizationType === undefined ||
        summary.customizationsSupported.includes(query.byCustomizationType as 'FINE_TUNING')),
  );
  return { modelSummaries: filtered };
}
