import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  MeshError,
  routePathKey,
  type CallerIdentity,
  type CreateHttpTriggerRequest,
  type HttpRouteExistsRequest,
  type HttpTrigger,
  type HttpTriggerPathRequest,
  type ListHttpTriggersRequest,
  type NewHttpTrigger,
  type RegistryIdentityClient,
  type RegistryItemsClient,
  type SetHttpTriggerEnabledRequest,
  type UpdateHttpTriggerRequest,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { RegistryAuthenticator } from '../../http/registry-authenticator.js';
import { OwnerTokens, type OwnerCredential } from '../owner-tokens.js';
import { HttpRouteTable } from './http-route.table.js';
import {
  HttpTriggerStore,
  toHttpTrigger,
  UNIQUE_VIOLATION,
  type HttpTriggerRow,
  type HttpTriggerWrite,
} from './http-trigger.store.js';
import { credentialOf } from './route-authentication.js';

/** Who is asking: the actor's token and what the registry says it is in the request's workspace. */
interface Asker {
  readonly token: string;
  readonly workspace: string;
  readonly identity: CallerIdentity;
}

/** The label binding a route's sealed owner token to the route. */
export function ownerLabel(workspace: string, path: string): string {
  return OwnerTokens.label('http', workspace, path);
}

/** `<workspace>/` for a workspaced route, then its key: two routes with one key and method clash. */
function routeKeyOf(workspace: string, routePath: string, workspaced: boolean): string {
  const key = routePathKey(routePath);
  return workspaced ? `${workspace}/${key}` : key;
}

const issue = (path: string, message: string) =>
  new MeshError('VALIDATION_FAILED', `${path}: ${message}`, {
    issues: [{ path, message }],
  });

/**
 * The HTTP routes' use cases, shared by the HTTP API (`http_triggers/...`) and
 * `orchestrator.http_trigger.*`. Who may do what, as Windmill's items: reading a route needs
 * read access to its path, saving or deleting it write access; a route outside the workspace's
 * namespace (not `workspaced_route`: `/api/r/<route>` is one namespace for the whole mesh)
 * needs an admin of the workspace, as Windmill asks of every route. Saving also needs read
 * access to the runnable and to the authentication resource, and makes the saver the route's
 * owner: its runs act as them (unless `windmill` auth, where they act as the caller).
 */
@Injectable()
export class HttpTriggersApi {
  private readonly identityClient: RegistryIdentityClient;
  private readonly items: RegistryItemsClient;

  constructor(
    mesh: MeshClient,
    private readonly authenticator: RegistryAuthenticator,
    private readonly store: HttpTriggerStore,
    private readonly table: HttpRouteTable,
    private readonly owners: OwnerTokens,
  ) {
    this.identityClient = createRegistryIdentityClient(mesh);
    this.items = createRegistryItemsClient(mesh);
  }

  async create(req: CreateHttpTriggerRequest): Promise<HttpTrigger> {
    const asker = await this.askerOf(req);
    const trigger = req.trigger;
    await this.requireAccess(asker, trigger.path, 'write');
    const routeKey = await this.checkSaved(asker, trigger, undefined);
    if (await this.store.find(asker.workspace, trigger.path)) {
      throw new MeshError('CONFLICT', `an HTTP route already exists at ${trigger.path}`, {
        path: trigger.path,
      });
    }
    const credential = await this.owners.mint(
      asker.token,
      asker.workspace,
      ownerLabel(asker.workspace, trigger.path),
    );
    try {
      const row = await this.store.insert(this.rowOf(asker, trigger, routeKey, credential));
      await this.table.reload();
      return toHttpTrigger(row);
    } catch (error) {
      await this.owners.revoke(credential, asker.workspace, ownerLabel(asker.workspace, trigger.path));
      throw this.clashOf(error, trigger);
    }
  }

  async update(req: UpdateHttpTriggerRequest): Promise<HttpTrigger> {
    const asker = await this.askerOf(req);
    const current = await this.readable(asker, req.path);
    await this.requireAccess(asker, req.path, 'write');
    const trigger = req.trigger;
    if (trigger.path !== req.path) {
      await this.requireAccess(asker, trigger.path, 'write');
      if (await this.store.find(asker.workspace, trigger.path)) {
        throw new MeshError('CONFLICT', `an HTTP route already exists at ${trigger.path}`, {
          path: trigger.path,
        });
      }
    }
    const routeKey = await this.checkSaved(asker, trigger, req.path);
    const credential = await this.owners.mint(
      asker.token,
      asker.workspace,
      ownerLabel(asker.workspace, trigger.path),
    );
    let row: HttpTriggerRow | undefined;
    try {
      row = await this.store.replace(req.path, this.rowOf(asker, trigger, routeKey, credential));
    } catch (error) {
      await this.owners.revoke(credential, asker.workspace, ownerLabel(asker.workspace, trigger.path));
      throw this.clashOf(error, trigger);
    }
    if (!row) {
      await this.owners.revoke(credential, asker.workspace, ownerLabel(asker.workspace, trigger.path));
      throw notFound(req.path);
    }
    await this.table.reload();
    // The previous owner's token is no longer the route's.
    await this.owners.revoke(
      { sealed: current.owner_token_sealed, prefix: current.owner_token_prefix },
      asker.workspace,
      ownerLabel(asker.workspace, current.path),
    );
    return toHttpTrigger(row);
  }

  async get(req: HttpTriggerPathRequest): Promise<HttpTrigger> {
    return toHttpTrigger(await this.readable(await this.askerOf(req), req.path));
  }

  async list(req: ListHttpTriggersRequest): Promise<{ triggers: HttpTrigger[] }> {
    const asker = await this.askerOf(req);
    const perPage = req.per_page ?? 100;
    const rows = await this.store.list(asker.workspace, {
      ...(req.path === undefined ? {} : { scriptPath: req.path }),
      ...(req.is_flow === undefined ? {} : { isFlow: req.is_flow }),
      ...(req.path_start === undefined ? {} : { pathStart: req.path_start }),
      limit: perPage,
      offset: ((req.page ?? 1) - 1) * perPage,
    });
    const visible = await Promise.all(rows.map((row) => this.mayAccess(asker, row.path, 'read')));
    return { triggers: rows.filter((_, index) => visible[index]).map(toHttpTrigger) };
  }

  async delete(req: HttpTriggerPathRequest): Promise<{ deleted: true }> {
    const asker = await this.askerOf(req);
    await this.readable(asker, req.path);
    await this.requireAccess(asker, req.path, 'write');
    const deleted = await this.store.delete(asker.workspace, req.path);
    if (!deleted) throw notFound(req.path);
    await this.table.reload();
    await this.owners.revoke(
      { sealed: deleted.owner_token_sealed, prefix: deleted.owner_token_prefix },
      asker.workspace,
      ownerLabel(asker.workspace, deleted.path),
    );
    return { deleted: true };
  }

  /** Whether a route exists at the path (Windmill answers this to anyone, to pick a free path). */
  async exists(req: HttpTriggerPathRequest): Promise<{ exists: boolean }> {
    const asker = await this.askerOf(req);
    return { exists: (await this.store.find(asker.workspace, req.path)) !== undefined };
  }

  async setEnabled(req: SetHttpTriggerEnabledRequest): Promise<HttpTrigger> {
    const asker = await this.askerOf(req);
    await this.readable(asker, req.path);
    await this.requireAccess(asker, req.path, 'write');
    const mode = req.mode ?? (req.enabled ? 'enabled' : 'disabled');
    const row = await this.store.setMode(asker.workspace, req.path, mode);
    if (!row) throw notFound(req.path);
    await this.table.reload();
    return toHttpTrigger(row);
  }

  async routeExists(req: HttpRouteExistsRequest): Promise<{ exists: boolean }> {
    const asker = await this.askerOf(req);
    const key = routeKeyOf(asker.workspace, req.route_path, req.workspaced_route ?? false);
    const except =
      req.trigger_path === undefined ? undefined : { workspace: asker.workspace, path: req.trigger_path };
    return { exists: await this.store.routeTaken(key, req.http_method, except) };
  }

  /** The checks of a route about to be saved; its route key when they pass. */
  private async checkSaved(
    asker: Asker,
    trigger: NewHttpTrigger,
    editing: string | undefined,
  ): Promise<string> {
    const workspaced = trigger.workspaced_route ?? false;
    if (!workspaced && !asker.identity.isAdmin) {
      throw new MeshError(
        'PERMISSION_DENIED',
        'only an admin of the workspace may save a route outside it (/api/r/<route> is shared by every workspace); set workspaced_route to serve it at /api/r/<workspace>/<route>',
        { issues: [{ path: 'workspaced_route', message: 'needs an admin when false' }] },
      );
    }
    await this.requireRunnable(asker, trigger);
    await this.requireCredential(asker, trigger);
    const routeKey = routeKeyOf(asker.workspace, trigger.route_path, workspaced);
    const except = editing === undefined ? undefined : { workspace: asker.workspace, path: editing };
    if (await this.store.routeTaken(routeKey, trigger.http_method, except)) throw routeClash(trigger);
    return routeKey;
  }

  /** The runnable exists and the saver may read it (a route on what its owner may not run is refused). */
  private async requireRunnable(asker: Asker, trigger: NewHttpTrigger): Promise<void> {
    const request = { actor: { token: asker.token }, workspace: asker.workspace, path: trigger.script_path };
    try {
      if (trigger.is_flow) await this.items.getFlow(request);
      else await this.items.getScript(request);
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND') {
        throw issue(
          'script_path',
          `no ${trigger.is_flow ? 'flow' : 'script'} ${trigger.script_path} that you may run`,
        );
      }
      throw error;
    }
  }

  private async requireCredential(asker: Asker, trigger: NewHttpTrigger): Promise<void> {
    const method = trigger.authentication_method;
    if (method === 'none' || method === 'windmill') return;
    const path = trigger.authentication_resource_path;
    if (!path)
      throw issue('authentication_resource_path', `is required with authentication_method ${method}`);
    let value: unknown;
    try {
      value = (
        await this.items.getResourceValueInterpolated({
          actor: { token: asker.token },
          workspace: asker.workspace,
          path,
        })
      ).value;
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND') {
        throw issue('authentication_resource_path', `no resource ${path} that you may read`);
      }
      throw error;
    }
    credentialOf(method, value);
  }

  private rowOf(
    asker: Asker,
    trigger: NewHttpTrigger,
    routeKey: string,
    credential: OwnerCredential,
  ): HttpTriggerWrite {
    const method = trigger.authentication_method;
    return {
      workspace_id: asker.workspace,
      path: trigger.path,
      route_path: trigger.route_path,
      route_path_key: routePathKey(trigger.route_path),
      route_key: routeKey,
      script_path: trigger.script_path,
      is_flow: trigger.is_flow,
      http_method: trigger.http_method,
      request_type: trigger.request_type ?? (trigger.is_async ? 'async' : 'sync'),
      authentication_method: method,
      authentication_resource_path:
        method === 'none' || method === 'windmill' ? null : (trigger.authentication_resource_path ?? null),
      workspaced_route: trigger.workspaced_route ?? false,
      wrap_body: trigger.wrap_body ?? false,
      raw_string: trigger.raw_string ?? false,
      summary: trigger.summary ?? null,
      description: trigger.description ?? null,
      mode: trigger.mode ?? (trigger.enabled === false ? 'disabled' : 'enabled'),
      edited_by: asker.identity.username,
      email: asker.identity.email,
      permissioned_as: credential.permissionedAs,
      owner_token_sealed: credential.sealed,
      owner_token_prefix: credential.prefix,
    };
  }

  private clashOf(error: unknown, trigger: NewHttpTrigger): unknown {
    if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) return error;
    const constraint = (error as { constraint?: unknown }).constraint;
    return constraint === 'http_trigger_route'
      ? routeClash(trigger)
      : new MeshError('CONFLICT', `an HTTP route already exists at ${trigger.path}`, { path: trigger.path });
  }

  private async askerOf(req: {
    readonly actor: { readonly token: string };
    readonly workspace: string;
  }): Promise<Asker> {
    const identity = await this.authenticator.authenticate(req.actor.token, req.workspace);
    return { token: req.actor.token, workspace: req.workspace, identity };
  }

  /** The route at `path` if the asker may read it; NOT_FOUND otherwise, as if it did not exist. */
  private async readable(asker: Asker, path: string): Promise<HttpTriggerRow> {
    const row = await this.store.find(asker.workspace, path);
    if (!row || !(await this.mayAccess(asker, path, 'read'))) throw notFound(path);
    return row;
  }

  private async requireAccess(asker: Asker, path: string, action: 'read' | 'write'): Promise<void> {
    if (!(await this.mayAccess(asker, path, action))) {
      throw new MeshError(
        'PERMISSION_DENIED',
        `you may not ${action === 'write' ? 'write' : 'read'} ${path}`,
        {
          path,
        },
      );
    }
  }

  private async mayAccess(asker: Asker, path: string, action: 'read' | 'write'): Promise<boolean> {
    if (asker.identity.isAdmin && !asker.identity.scopes) return true;
    const reply = await this.identityClient.checkAccess({
      actor: { token: asker.token },
      workspace: asker.workspace,
      path,
      action,
    });
    return reply.allowed;
  }
}

function notFound(path: string): MeshError {
  return new MeshError('NOT_FOUND', `no HTTP route at ${path}`, { path });
}

function routeClash(trigger: NewHttpTrigger): MeshError {
  return new MeshError(
    'CONFLICT',
    `a route already answers ${trigger.http_method.toUpperCase()} ${trigger.route_path}${trigger.workspaced_route ? ' in this workspace' : ''}`,
    { issues: [{ path: 'route_path', message: 'already taken for this method' }] },
  );
}
