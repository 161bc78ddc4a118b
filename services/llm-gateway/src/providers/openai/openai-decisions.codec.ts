import type { AiDecisionQuestion } from '@flowmesh/contracts';
import { isRecord } from '../../decisions/decision-answers.normalizer.js';
import type { DecisionsCodec } from '../provider-adapter.js';
import { providerCallError } from '../provider-call.error.js';
import type { ProviderCredentials } from '../provider-credentials.js';

/**
 * OpenAI's Decisions API, as far as this gateway assumes it (no public reference was reachable
 * when it was written; see the gateway README, "Decision models"): `POST {base_url}/decisions`
 * with the key as a bearer token, the questions as a list in OpenAI's vocabulary
 * (`multiple_choice` with `options`, `scale` with `levels`, `boolean`), answered
 * `{id, object: "decision", model, results: [...], usage}`. Everything vendor-specific about it is
 * in this file: the rest of the gateway sees System One answers.
 */
export function openAIDecisions(baseUrl: (credentials: ProviderCredentials) => string): DecisionsCodec {
  return {
    buildRequest(call, credentials) {
      return {
        method: 'POST',
        url: `${baseUrl(credentials).replace(/\/+$/, '')}/decisions`,
        headers: {
          'content-type': 'application/json',
          ...(credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {}),
          ...(credentials.organization_id ? { 'openai-organization': credentials.organization_id } : {}),
        },
        body: {
          model: call.model,
          input: typeof call.state === 'string' ? call.state : JSON.stringify(call.state),
          questions: Object.entries(call.questions as Record<string, AiDecisionQuestion>).map(
            ([name, question]) => openAIQuestion(name, question),
          ),
        },
      };
    },
    parseResponse(body, call) {
      if (!isRecord(body) || !Array.isArray(body.results))
        throw providerCallError('provider_outage', 'OpenAI answered the decision without results', {
          model: call.model,
        });
      const answers: Record<string, Record<string, unknown>> = {};
      for (const result of body.results) {
        if (isRecord(result) && typeof result.name === 'string')
          answers[result.name] = systemOneAnswer(result);
      }
      const usage = isRecord(body.usage) ? body.usage : {};
      return {
        answers,
        model: typeof body.model === 'string' ? body.model : call.model,
        inputTokens: count(usage.input_tokens),
        outputTokens: count(usage.output_tokens),
      };
    },
  };
}

function openAIQuestion(name: string, question: AiDecisionQuestion): Record<string, unknown> {
  const base = { name, instructions: question.instructions };
  switch (question.type) {
    case 'choice':
      return {
        ...base,
        type: 'multiple_choice',
        options: Object.entries(question.criteria).map(([label, description]) => ({ label, description })),
      };
    case 'score':
      return { ...base, type: 'scale', levels: question.criteria };
    case 'noul':
      return {
        ...base,
        type: 'boolean',
        ...(question.criteria?.true ? { true_description: question.criteria.true } : {}),
        ...(question.criteria?.false ? { false_description: question.criteria.false } : {}),
      };
  }
}

/** One OpenAI result as a System One answer (the normalizer checks it against the question). */
function systemOneAnswer(result: Record<string, unknown>): Record<string, unknown> {
  switch (result.type) {
    case 'multiple_choice':
      return {
        type: 'choice',
        choice: result.label,
        probabilities: Array.isArray(result.probabilities)
          ? Object.fromEntries(
              result.probabilities.filter(isRecord).map((entry) => [String(entry.label), entry.probability]),
            )
          : undefined,
        confidence: result.confidence,
      };
    case 'scale':
      return {
        type: 'score',
        score: result.level,
        probabilities: result.probabilities,
        confidence: result.confidence,
      };
    case 'boolean':
      return { type: 'noul', noul: result.probability_true };
    default:
      return { type: String(result.type) };
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0;
}
