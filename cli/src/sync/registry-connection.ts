import { z } from 'zod';
import { CliConfigError } from '../cli.config.js';

/** Where `push`, `pull` and `versions` find the registry: the mesh's HTTP entry point. */
export interface RegistrySettings {
  /** `http://127.0.0.1:8000`, no trailing slash. */
  readonly url: string;
  readonly token: string;
  readonly workspace: string;
}

const schema = z.object({
  FLOWMESH_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .default('http://127.0.0.1:8000'),
  FLOWMESH_TOKEN: z
    .string({ error: 'is not set: an API token of the registry (see flowmesh admin init)' })
    .min(1),
  FLOWMESH_WORKSPACE: z.string().min(1).default('main'),
});

/** From the environment (`--workspace` wins over FLOWMESH_WORKSPACE); one line naming what is wrong. */
export function readRegistrySettings(env: NodeJS.ProcessEnv, workspace?: string): RegistrySettings {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${String(issue.path[0])} ${issue.message}`);
    throw new CliConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return {
    url: result.data.FLOWMESH_URL.replace(/\/+$/, ''),
    token: result.data.FLOWMESH_TOKEN,
    workspace: workspace ?? result.data.FLOWMESH_WORKSPACE,
  };
}

/** An error answer of the registry: its stable code and message (never the token). */
export class RegistryRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryRequestError';
  }
}

/** JSON over HTTP to `/api/w/<workspace>/...` with the bearer token. */
export class RegistryHttp {
  constructor(private readonly settings: RegistrySettings) {}

  get workspace(): string {
    return this.settings.workspace;
  }

  /** The mesh's address (`http://127.0.0.1:8000`), for URLs a user is handed. */
  get baseUrl(): string {
    return this.settings.url;
  }

  /** A JSON answer, decoded with its schema from the contracts. */
  async get<S extends z.ZodType>(route: string, answer: S): Promise<z.output<S>> {
    return decode('GET', route, answer, await this.request('GET', route));
  }

  async post<S extends z.ZodType>(route: string, body: unknown, answer: S): Promise<z.output<S>> {
    return decode('POST', route, answer, await this.request('POST', route, body));
  }

  /** A text answer (a job id, logs, a sentence), as sent. */
  async getText(route: string): Promise<string> {
    return (await this.request('GET', route)).text();
  }

  async postText(route: string, body: unknown): Promise<string> {
    return (await this.request('POST', route, body)).text();
  }

  async putText(route: string, body: unknown): Promise<string> {
    return (await this.request('PUT', route, body)).text();
  }

  async deleteText(route: string): Promise<string> {
    return (await this.request('DELETE', route)).text();
  }

  /** A GET whose answer is read as it comes (server-sent events); an error answer throws as `get`'s. */
  open(route: string): Promise<Response> {
    return this.request('GET', route);
  }

  private async request(method: string, route: string, body?: unknown): Promise<Response> {
    const url = `${this.settings.url}/api/w/${encodeURIComponent(this.settings.workspace)}/${route}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.settings.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new RegistryRequestError(
        0,
        'UNAVAILABLE',
        `cannot reach the mesh at ${this.settings.url}${cause} (is it running? FLOWMESH_URL)`,
      );
    }
    if (!response.ok) {
      // Read as JSON whatever the content type says: routes that answer text on success (a
      // create answers the path) still send the error envelope as JSON.
      const envelope = parseJson(await response.text()) as { code?: unknown; message?: unknown } | undefined;
      const code = typeof envelope?.code === 'string' ? envelope.code : `HTTP_${response.status}`;
      const message =
        typeof envelope?.message === 'string'
          ? envelope.message
          : `${method} ${route} answered ${response.status}`;
      throw new RegistryRequestError(response.status, code, message);
    }
    return response;
  }
}

/** The answer's JSON as its contract says it is; one that is not is an error naming the route and what differs. */
async function decode<S extends z.ZodType>(
  method: string,
  route: string,
  answer: S,
  response: Response,
): Promise<z.output<S>> {
  const parsed = answer.safeParse(parseJson(await response.text()));
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'the body'}: ${issue.message}`,
  );
  throw new RegistryRequestError(
    response.status,
    'INVALID_ANSWER',
    `${method} ${route} answered what its contract does not allow (${problems.join('; ')})`,
  );
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}
