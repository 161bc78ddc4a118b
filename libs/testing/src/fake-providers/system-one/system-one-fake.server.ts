import type http from 'node:http';
import { startRecordingServer, type RecordedRequest } from '../recording-server.js';

export interface FakeSystemOneOptions {
  /** The key the fake expects as a bearer token; any other is answered 401. */
  readonly apiKey: string;
}

/** A fake decision service (System One): TypeSafe's `/v1/systemone` and Cloudflare's Workers AI `run`. */
export interface FakeSystemOne {
  readonly url: string;
  /** A TypeSafe resource's `base_url`: the fake's `/v1` (the call goes to `{base_url}/systemone`). */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** The answers of the next call, by question name; without them every question gets a made-up answer. */
  answer(answers: Record<string, Record<string, unknown>>): void;
  /** The next call is answered with this status and error body instead (a rate limit, an outage). */
  failNext(status: number, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

const TYPESAFE_PATH = '/v1/systemone';
const WORKERS_AI_RUN = /^\/client\/v4\/accounts\/([^/]+)\/ai\/run\/(@cf\/.+)$/;

/**
 * Speaks the System One wire format as the vendors do: `{model, state, questions}` in;
 * `{model, answers, usage: {input_tokens, output_tokens}}` out, wrapped in Cloudflare's
 * `{result, success, errors, messages}` envelope on its `run` route; 401 for a wrong key, 422 for
 * a request without questions.
 */
export async function startFakeSystemOne(options: FakeSystemOneOptions): Promise<FakeSystemOne> {
  const scripted: Record<string, Record<string, unknown>>[] = [];
  const failures: { status: number; body: unknown; headers: Record<string, string> }[] = [];
  const server = await startRecordingServer(async (request, res) => {
    const cloudflare = WORKERS_AI_RUN.exec(request.path);
    if (request.method !== 'POST' || (request.path !== TYPESAFE_PATH && !cloudflare))
      return send(res, 404, { error: { message: `no route ${request.method} ${request.path}` } });
    if (request.headers.authorization !== `Bearer ${options.apiKey}`)
      return send(res, 401, { error: { type: 'authentication_error', message: 'invalid api key' } });
    const failure = failures.shift();
    if (failure) return send(res, failure.status, failure.body, failure.headers);
    const body = request.body as {
      model?: string;
      state?: unknown;
      questions?: Record<string, { type?: string; criteria?: unknown }>;
    };
    if (!body?.questions || Object.keys(body.questions).length === 0)
      return send(res, 422, {
        error: { type: 'invalid_request_error', message: 'questions: at least one is required' },
      });
    const answers = scripted.shift() ?? madeUp(body.questions);
    const model = cloudflare
      ? cloudflare[2]
      : body.model === 'jev-latest'
        ? 'jev-1.13.0'
        : (body.model ?? 'jev-1.13.0');
    const reply = {
      model,
      answers,
      usage: { input_tokens: JSON.stringify(body.state ?? '').length, output_tokens: 0 },
    };
    return send(res, 200, cloudflare ? { result: reply, success: true, errors: [], messages: [] } : reply);
  });
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    requests: server.requests,
    answer: (answers) => void scripted.push(answers),
    failNext: (status, body, headers = {}) => void failures.push({ status, body, headers }),
    close: () => server.close(),
  };
}

/** A plausible answer per question: the first option, the lowest level, a yes. */
function madeUp(
  questions: Record<string, { type?: string; criteria?: unknown }>,
): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    Object.entries(questions).map(([name, question]): [string, Record<string, unknown>] => {
      if (question.type === 'choice') {
        const options = Object.keys((question.criteria as Record<string, unknown> | undefined) ?? {});
        const probabilities = Object.fromEntries(options.map((option, i) => [option, i === 0 ? 1 : 0]));
        return [name, { type: 'choice', choice: options[0], probabilities, confidence: 1 }];
      }
      if (question.type === 'score') return [name, { type: 'score', score: 0, confidence: 1 }];
      return [name, { type: 'noul', noul: 0.9 }];
    }),
  );
}

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<void> {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
  return Promise.resolve();
}
