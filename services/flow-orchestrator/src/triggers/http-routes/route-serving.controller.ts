import type { ServerResponse } from 'node:http';
import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  MeshError,
  type CallerIdentity,
  type ErrorEnvelope,
  type RegistryIdentityClient,
  type RegistryItemsClient,
} from '@flowmesh/contracts';
import { HTTP_STATUS_OF, jsonDepth, MAX_JSON_DEPTH } from '@flowmesh/bootstrap';
import { bearerTokenOf } from '@flowmesh/http';
import { MeshClient } from '@flowmesh/messaging';
import { All, Controller, Inject, Logger, Req, Res } from '@nestjs/common';
import { RegistryAuthenticator } from '../../http/registry-authenticator.js';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { WaitForResultService } from '../../run-api/wait-for-result.service.js';
import { OwnerTokens } from '../owner-tokens.js';
import {
  httpRouteEvent,
  mainArgsOf,
  readTriggerBody,
  triggerHeaders,
  triggerQuery,
  type TriggerHttpRequest,
} from '../trigger-event.js';
import { TriggerMetrics, type RouteRejection } from '../trigger.metrics.js';
import { HttpRouteTable } from './http-route.table.js';
import type { HttpTriggerRow } from './http-trigger.store.js';
import { ownerLabel } from './http-triggers-api.service.js';
import type { RawBodyRequest } from './raw-body.middleware.js';
import { checkCredential, credentialOf, type RouteCredential } from './route-authentication.js';
import { routeAnswerOf } from './route-response.js';

/** The largest body a route takes (the orchestrator's `FLOWMESH_HTTP_BODY_LIMIT_BYTES`). */
export const ROUTE_BODY_LIMIT_BYTES = Symbol('flow-orchestrator.http-routes.body-limit');

/** How long a route's authentication resource is reused before it is read again (ms). */
const CREDENTIAL_TTL_MS = 10_000;
const PREFIX = '/api/r';

type RouteRequest = RawBodyRequest & TriggerHttpRequest;

/** Refused with nothing run: the status, the envelope, the reason counted, and headers. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope,
    readonly reason: RouteRejection | undefined,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(envelope.message);
  }
}

/** As whom a route's run starts. */
interface RunAs {
  readonly token: string;
  readonly identity: CallerIdentity;
}

/**
 * Serves the HTTP routes at `/api/r/<route>` (and `/api/r/<workspace>/<route>`), as Windmill's
 * `route_job`: the route from the in-memory table (404 for no route, 405 with `Allow` for a
 * route of other methods), the body's limit (413), the route's authentication (401, nothing
 * run), then a run of its script or flow through the run use cases, with the preprocessor
 * applied and the request as the trigger's event. `async` answers 201 and the job id, `sync`
 * the result (500 when the run failed; Windmill's `windmill_status_code` results honoured). No
 * header, body or credential is ever logged.
 */
@Controller(PREFIX.slice(1))
export class RouteServingController {
  private readonly log = new Logger(RouteServingController.name);
  private readonly identityClient: RegistryIdentityClient;
  private readonly items: RegistryItemsClient;
  private readonly credentials = new Map<string, { expires: number; credential: Promise<RouteCredential> }>();

  constructor(
    mesh: MeshClient,
    private readonly table: HttpRouteTable,
    private readonly owners: OwnerTokens,
    private readonly authenticator: RegistryAuthenticator,
    private readonly runFlows: RunFlowUseCase,
    private readonly runScripts: RunScriptUseCase,
    private readonly wait: WaitForResultService,
    private readonly metrics: TriggerMetrics,
    @Inject(ROUTE_BODY_LIMIT_BYTES) private readonly bodyLimitBytes: number,
  ) {
    this.identityClient = createRegistryIdentityClient(mesh);
    this.items = createRegistryItemsClient(mesh);
  }

  @All('*path')
  async serve(@Req() req: RouteRequest, @Res() res: ServerResponse): Promise<void> {
    try {
      await this.handle(req, res);
    } catch (error) {
      if (res.headersSent) return void res.end();
      if (error instanceof Refusal) {
        if (error.reason) this.metrics.rejected(error.reason);
        return send(res, error.status, JSON.stringify(error.envelope), 'application/json', error.headers);
      }
      const mesh =
        error instanceof MeshError ? error : new MeshError('INTERNAL', 'the route could not be served');
      if (!(error instanceof MeshError)) this.log.error(`HTTP route failed: ${(error as Error).message}`);
      send(res, HTTP_STATUS_OF[mesh.code], JSON.stringify(mesh.toEnvelope()), 'application/json');
    }
  }

  private async handle(req: RouteRequest, res: ServerResponse): Promise<void> {
    const segments = segmentsOf(req);
    const calledPath = segments.join('/');
    const method = (req.method ?? 'GET').toLowerCase();
    const lookup = method === 'head' || method === 'options' ? 'get' : method;
    const match = await this.table.match(lookup, segments);
    if (match.kind === 'not_found' || segments.length === 0) {
      throw new Refusal(404, { code: 'NOT_FOUND', message: `no HTTP route at /${calledPath}` }, 'not_found');
    }
    if (method === 'options' || method === 'head') {
      const allow = match.kind === 'found' ? allowOf(await this.table.match('\0', segments)) : match.allow;
      const methods = allow.map((name) => name.toUpperCase()).join(', ');
      // A browser's preflight: what Windmill's routes allow cross-origin.
      const headers = {
        allow: methods,
        'access-control-allow-methods': `${methods}, HEAD, OPTIONS`,
        'access-control-allow-headers': 'content-type, authorization',
      };
      return send(
        res,
        method === 'options' ? 204 : match.kind === 'found' ? 200 : 405,
        '',
        'text/plain',
        headers,
      );
    }
    if (match.kind === 'method_not_allowed') {
      const allow = match.allow.map((name) => name.toUpperCase()).join(', ');
      throw new Refusal(
        405,
        {
          code: 'VALIDATION_FAILED',
          message: `${method.toUpperCase()} is not allowed on /${calledPath}: ${allow}`,
        },
        'method_not_allowed',
        { allow },
      );
    }
    if (req.rawBodyTooLarge) {
      throw new Refusal(
        413,
        { code: 'LIMIT_EXCEEDED', message: `the body is larger than ${this.bodyLimitBytes} bytes` },
        'too_large',
      );
    }
    const row = match.route.row;
    const runAs = await this.authenticate(row, req);
    const run = await this.runOf(row, req, calledPath, match.params);
    let jobId: string;
    try {
      const command = {
        actor: { token: runAs.token },
        workspace: row.workspace_id,
        path: row.script_path,
        args: run.args,
        apply_preprocessor: true,
        trigger: { kind: 'http' as const, path: row.path },
        trigger_event: run.event,
      };
      jobId = row.is_flow
        ? await this.runFlows.run(command, runAs.identity)
        : await this.runScripts.run(command, runAs.identity);
    } catch (error) {
      this.metrics.failed('http');
      this.log.warn(`HTTP route ${row.workspace_id}/${row.path} could not start its run: ${codeOf(error)}`);
      throw error;
    }
    this.metrics.fired('http');
    if (row.request_type === 'async') return send(res, 201, jobId, 'text/plain; charset=utf-8');
    const outcome = await this.wait.outcomeOf(
      { identity: runAs.identity, actor: { token: runAs.token } },
      jobId,
    );
    const answer = routeAnswerOf(outcome.success, outcome.result);
    send(res, answer.status, answer.body, answer.contentType, { ...answer.headers, 'x-job-id': jobId });
  }

  /** Whom the run acts as, once the request passed the route's authentication (401 otherwise). */
  private async authenticate(row: HttpTriggerRow, req: RouteRequest): Promise<RunAs> {
    if (row.authentication_method === 'windmill') return this.caller(row, req);
    const owner = await this.owner(row);
    if (row.authentication_method === 'none') return owner;
    const credential = await this.credentialOf(row, owner.token);
    const failure = checkCredential(credential, req.headers, req.rawBody ?? Buffer.alloc(0));
    if (failure) {
      throw new Refusal(
        401,
        { code: 'UNAUTHENTICATED', message: failure.message },
        'unauthorized',
        failure.challenge ? { 'www-authenticate': failure.challenge } : {},
      );
    }
    return owner;
  }

  /** `windmill`: a token of the route's workspace whose user may read the route; the run is theirs. */
  private async caller(row: HttpTriggerRow, req: RouteRequest): Promise<RunAs> {
    const token = bearerTokenOf(req.headers.authorization) ?? tokenQueryOf(req);
    const refused = (message: string) =>
      new Refusal(401, { code: 'UNAUTHENTICATED', message }, 'unauthorized', {
        'www-authenticate': 'Bearer',
      });
    if (token === undefined)
      throw refused('this route needs a token of its workspace: "Authorization: Bearer <token>"');
    let identity: CallerIdentity;
    try {
      identity = await this.authenticator.authenticate(token, row.workspace_id);
    } catch (error) {
      if (
        error instanceof MeshError &&
        (error.code === 'UNAUTHENTICATED' || error.code === 'PERMISSION_DENIED')
      )
        throw refused('the token is not valid in the route’s workspace');
      throw error;
    }
    const { allowed } = await this.identityClient.checkAccess({
      actor: { token },
      workspace: row.workspace_id,
      path: row.path,
      action: 'read',
    });
    if (!allowed) throw refused('the token’s user may not use this route');
    return { token, identity };
  }

  /** The route's owner: the token minted from its last editor's, as the registry knows it now. */
  private async owner(row: HttpTriggerRow): Promise<RunAs> {
    try {
      const token = this.owners.open(
        { sealed: row.owner_token_sealed },
        ownerLabel(row.workspace_id, row.path),
      );
      return { token, identity: await this.authenticator.authenticate(token, row.workspace_id) };
    } catch (error) {
      // The registry down is not the owner's fault: said as it is (503), not as a refusal.
      if (error instanceof MeshError && (error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT'))
        throw error;
      this.metrics.failed('http');
      this.log.warn(`HTTP route ${row.workspace_id}/${row.path} cannot act as its owner: ${codeOf(error)}`);
      throw new MeshError(
        'PERMISSION_DENIED',
        `route ${row.path} cannot run as its owner ${row.permissioned_as} (removed, or the route's token revoked): save the route again`,
      );
    }
  }

  /** The route's authentication resource, read as its owner, kept `CREDENTIAL_TTL_MS` (and per edit). */
  private credentialOf(row: HttpTriggerRow, ownerToken: string): Promise<RouteCredential> {
    const key = `${row.workspace_id}\n${row.path}\n${row.edited_at.getTime()}`;
    const now = Date.now();
    const cached = this.credentials.get(key);
    if (cached && cached.expires > now) return cached.credential;
    const credential = (async () => {
      const path = row.authentication_resource_path;
      if (!path) throw new MeshError('INTERNAL', `route ${row.path} has no authentication resource`);
      try {
        const { value } = await this.items.getResourceValueInterpolated({
          actor: { token: ownerToken },
          workspace: row.workspace_id,
          path,
        });
        return credentialOf(row.authentication_method, value)!;
      } catch (error) {
        this.log.warn(
          `HTTP route ${row.workspace_id}/${row.path}: its authentication resource is unusable (${codeOf(error)})`,
        );
        throw new MeshError('INTERNAL', `the authentication resource of route ${row.path} cannot be used`);
      }
    })();
    if (this.credentials.size > 1_000) this.credentials.clear();
    this.credentials.set(key, { expires: now + CREDENTIAL_TTL_MS, credential });
    credential.catch(() => this.credentials.delete(key));
    return credential;
  }

  /** The run's arguments and the preprocessor's event, from the request. */
  private async runOf(
    row: HttpTriggerRow,
    req: RouteRequest,
    calledPath: string,
    params: Record<string, string>,
  ) {
    let body;
    try {
      body = await readTriggerBody(req, {
        raw: row.raw_string || row.authentication_method === 'signature',
        limitBytes: this.bodyLimitBytes,
      });
    } catch (error) {
      if (error instanceof MeshError && error.code === 'UNSUPPORTED')
        throw new Refusal(415, error.toEnvelope(), 'bad_request');
      if (error instanceof MeshError && error.code === 'VALIDATION_FAILED')
        throw new Refusal(400, error.toEnvelope(), 'bad_request');
      throw error;
    }
    if (jsonDepth(body.body) > MAX_JSON_DEPTH) {
      // Read here, the body skipped the app's depth guard: the same limit, before anything walks it.
      const message = `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`;
      throw new Refusal(400, { code: 'VALIDATION_FAILED', message }, 'bad_request');
    }
    const headers = triggerHeaders(req);
    if (row.authentication_method === 'api_key') {
      const credential = await this.credentials.get(
        `${row.workspace_id}\n${row.path}\n${row.edited_at.getTime()}`,
      )?.credential;
      if (credential?.method === 'api_key') delete headers[credential.config.api_key_header.toLowerCase()];
    }
    const event = httpRouteEvent({
      route: row.route_path,
      path: calledPath,
      method: req.method ?? 'GET',
      params,
      body,
      query: triggerQuery(req),
      headers,
    });
    return { event, args: mainArgsOf(body, { wrapBody: row.wrap_body }) };
  }
}

/** The segments of `/api/r/a/b/?x` (`a`, `b`), each decoded; none when it does not decode. */
function segmentsOf(req: RouteRequest): string[] {
  const url = req.originalUrl ?? req.url ?? '';
  const pathname = url.split('?', 1)[0];
  const rest = pathname.startsWith(`${PREFIX}/`) ? pathname.slice(PREFIX.length + 1) : '';
  const trimmed = rest.replace(/\/+$/, '');
  if (trimmed === '') return [];
  try {
    return trimmed.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return [];
  }
}

function tokenQueryOf(req: RouteRequest): string | undefined {
  const url = req.originalUrl ?? req.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? undefined : (new URLSearchParams(url.slice(at + 1)).get('token') ?? undefined);
}

function allowOf(match: { kind: string; allow?: readonly string[] }): readonly string[] {
  return match.allow ?? [];
}

function codeOf(error: unknown): string {
  return error instanceof MeshError ? `${error.code}: ${error.message}` : 'internal error';
}

function send(
  res: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.statusCode = status;
  res.setHeader('access-control-allow-origin', '*');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (status !== 204) res.setHeader('content-type', contentType);
  res.end(status === 204 ? undefined : body);
}
