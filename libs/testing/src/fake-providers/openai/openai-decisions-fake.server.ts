import type http from 'node:http';
import { startRecordingServer, type RecordedRequest } from '../recording-server.js';

export interface FakeOpenAIDecisionsOptions {
  /** The key the fake expects as a bearer token; any other is answered 401. */
  readonly apiKey: string;
}

/** One scripted result, as OpenAI's Decisions API gives it (the fake adds `name`). */
export type OpenAIDecisionResult =
  | {
      type: 'multiple_choice';
      label: string;
      probabilities: { label: string; probability: number }[];
      confidence: number;
    }
  | { type: 'scale'; level: number; probabilities: number[]; confidence: number }
  | { type: 'boolean'; probability_true: number };

/** A fake of OpenAI's Decisions API (`POST /v1/decisions`), as the gateway README describes it. */
export interface FakeOpenAIDecisions {
  readonly url: string;
  /** What a provider resource's `base_url` is: the fake's `/v1`. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** The results of the next call, by question name; without them each question gets a made-up one. */
  answer(results: Record<string, OpenAIDecisionResult>): void;
  close(): Promise<void>;
}

interface OpenAIQuestion {
  name?: unknown;
  type?: unknown;
  instructions?: unknown;
  options?: { label: string }[];
  levels?: unknown[];
}

const QUESTION_TYPES = new Set(['multiple_choice', 'scale', 'boolean']);

/**
 * Speaks the wire format the gateway assumes for OpenAI's Decisions API: `{model, input,
 * questions: [{name, type, instructions, options | levels | true_description/false_description}]}`
 * in; `{id, object: "decision", created, model, results: [{name, ...}], usage}` out. OpenAI's error
 * envelope (`{error: {message, type, param, code}}`): 401 for a wrong key, 400 for a malformed
 * question, 404 for another route.
 */
export async function startFakeOpenAIDecisions(
  options: FakeOpenAIDecisionsOptions,
): Promise<FakeOpenAIDecisions> {
  const scripted: Record<string, OpenAIDecisionResult>[] = [];
  let calls = 0;
  const server = await startRecordingServer(async (request, res) => {
    if (request.method !== 'POST' || request.path !== '/v1/decisions')
      return send(
        res,
        404,
        error('invalid_request_error', `Unknown request URL: ${request.method} ${request.path}`),
      );
    if (request.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(res, 401, error('invalid_request_error', 'Incorrect API key provided.', 'invalid_api_key'));
    const body = request.body as { model?: unknown; input?: unknown; questions?: unknown };
    if (typeof body?.model !== 'string' || typeof body.input !== 'string')
      return send(
        res,
        400,
        error('invalid_request_error', 'model and input (a string) are required', null, 'input'),
      );
    const questions = Array.isArray(body.questions) ? (body.questions as OpenAIQuestion[]) : [];
    const malformed = questions.findIndex(
      (question) => typeof question.name !== 'string' || !QUESTION_TYPES.has(String(question.type)),
    );
    if (questions.length === 0 || malformed >= 0)
      return send(
        res,
        400,
        error(
          'invalid_request_error',
          'each question needs a name and a type',
          null,
          `questions[${Math.max(malformed, 0)}]`,
        ),
      );
    const script = scripted.shift() ?? {};
    const results = questions.map((question) => ({
      name: question.name,
      ...(script[question.name as string] ?? madeUp(question)),
    }));
    calls += 1;
    return send(res, 200, {
      id: `dec_${calls.toString(16).padStart(8, '0')}`,
      object: 'decision',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      results,
      usage: {
        input_tokens: body.input.length,
        output_tokens: questions.length,
        total_tokens: body.input.length + questions.length,
      },
    });
  });
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    requests: server.requests,
    answer: (results) => void scripted.push(results),
    close: () => server.close(),
  };
}

/** The first option, the lowest level, a likely yes. */
function madeUp(question: OpenAIQuestion): OpenAIDecisionResult {
  if (question.type === 'multiple_choice') {
    const labels = (question.options ?? []).map((option) => option.label);
    return {
      type: 'multiple_choice',
      label: labels[0] ?? '',
      probabilities: labels.map((label, index) => ({ label, probability: index === 0 ? 1 : 0 })),
      confidence: 1,
    };
  }
  if (question.type === 'scale')
    return {
      type: 'scale',
      level: 0,
      probabilities: (question.levels ?? []).map((_, index) => (index === 0 ? 1 : 0)),
      confidence: 1,
    };
  return { type: 'boolean', probability_true: 0.9 };
}

function error(type: string, message: string, code: string | null = null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

function send(res: http.ServerResponse, status: number, body: unknown): Promise<void> {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return Promise.resolve();
}
