import {
  createRegistryIdentityClient,
  createRegistryItemsClient,
  MeshError,
  type CallerIdentity,
  type CreateEventTriggerRequest,
  type EventTrigger,
  type EventTriggerKind,
  type EventTriggerPathRequest,
  type ListEventTriggersRequest,
  type NewEventTrigger,
  type RegistryIdentityClient,
  type RegistryItemsClient,
  type SetEventTriggerModeRequest,
  type UpdateEventTriggerRequest,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { RegistryAuthenticator } from '../../http/registry-authenticator.js';
import { OwnerTokens, type OwnerCredential } from '../owner-tokens.js';
import { connectionOf, resourceFieldOf } from './connection-resource.js';
import { eventTriggerLabel } from './event-trigger-label.js';
import {
  EventTriggerStore,
  toEventTrigger,
  UNIQUE_VIOLATION,
  type EventTriggerRow,
  type EventTriggerWrite,
} from './event-trigger.store.js';
import { EventTriggerSupervisor } from './event-trigger.supervisor.js';

interface Asker {
  readonly token: string;
  readonly workspace: string;
  readonly identity: CallerIdentity;
}

const issue = (path: string, message: string) =>
  new MeshError('VALIDATION_FAILED', `${path}: ${message}`, { issues: [{ path, message }] });

/** The fields of a `New<Kind>Trigger` that are the kind's own (kept in `config`). */
const COMMON_FIELDS = new Set([
  'path',
  'script_path',
  'is_flow',
  'mode',
  'enabled',
  'filters',
  'filter_logic',
  'error_handler_path',
  'error_handler_args',
  'retry',
  'summary',
  'description',
]);

/**
 * The event triggers' use cases, shared by the HTTP API (`<kind>_triggers/...`) and
 * `orchestrator.event_trigger.*`. As Windmill's items: reading a trigger needs read access to its
 * path, saving or deleting it write access. Saving also needs read access to the runnable and to
 * the connection's resource (which must describe a connection of the kind), and makes the saver
 * the trigger's owner: its runs act as them, and its connection is read as them.
 */
@Injectable()
export class EventTriggersApi {
  private readonly identityClient: RegistryIdentityClient;
  private readonly items: RegistryItemsClient;

  constructor(
    mesh: MeshClient,
    private readonly authenticator: RegistryAuthenticator,
    private readonly store: EventTriggerStore,
    private readonly owners: OwnerTokens,
    private readonly supervisor: EventTriggerSupervisor,
  ) {
    this.identityClient = createRegistryIdentityClient(mesh);
    this.items = createRegistryItemsClient(mesh);
  }

  async create(req: CreateEventTriggerRequest): Promise<EventTrigger> {
    const asker = await this.askerOf(req);
    const { kind, trigger } = req;
    await this.requireAccess(asker, trigger.path, 'write');
    await this.checkSaved(asker, kind, trigger);
    if (await this.store.find(asker.workspace, kind, trigger.path)) throw taken(kind, trigger.path);
    const label = eventTriggerLabel(kind, asker.workspace, trigger.path);
    const credential = await this.owners.mint(asker.token, asker.workspace, label);
    try {
      const row = await this.store.insert(this.rowOf(asker, kind, trigger, credential));
      this.supervisor.changed();
      return toEventTrigger(row);
    } catch (error) {
      await this.owners.revoke(credential, asker.workspace, label);
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw taken(kind, trigger.path);
      throw error;
    }
  }

  async update(req: UpdateEventTriggerRequest): Promise<EventTrigger> {
    const asker = await this.askerOf(req);
    const { kind, trigger } = req;
    const current = await this.readable(asker, kind, req.path);
    await this.requireAccess(asker, req.path, 'write');
    if (trigger.path !== req.path) {
      await this.requireAccess(asker, trigger.path, 'write');
      if (await this.store.find(asker.workspace, kind, trigger.path)) throw taken(kind, trigger.path);
    }
    await this.checkSaved(asker, kind, trigger);
    const label = eventTriggerLabel(kind, asker.workspace, trigger.path);
    const credential = await this.owners.mint(asker.token, asker.workspace, label);
    let row: EventTriggerRow | undefined;
    try {
      row = await this.store.replace(req.path, this.rowOf(asker, kind, trigger, credential));
    } catch (error) {
      await this.owners.revoke(credential, asker.workspace, label);
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw taken(kind, trigger.path);
      throw error;
    }
    if (!row) {
      await this.owners.revoke(credential, asker.workspace, label);
      throw notFound(kind, req.path);
    }
    this.supervisor.changed();
    await this.owners.revoke(
      { sealed: current.owner_token_sealed, prefix: current.owner_token_prefix },
      asker.workspace,
      eventTriggerLabel(kind, asker.workspace, current.path),
    );
    return toEventTrigger(row);
  }

  async get(req: EventTriggerPathRequest): Promise<EventTrigger> {
    return toEventTrigger(await this.readable(await this.askerOf(req), req.kind, req.path));
  }

  async list(req: ListEventTriggersRequest): Promise<{ triggers: EventTrigger[] }> {
    const asker = await this.askerOf(req);
    const perPage = req.per_page ?? 100;
    const rows = await this.store.list(asker.workspace, req.kind, {
      ...(req.path === undefined ? {} : { scriptPath: req.path }),
      ...(req.is_flow === undefined ? {} : { isFlow: req.is_flow }),
      ...(req.path_start === undefined ? {} : { pathStart: req.path_start }),
      limit: perPage,
      offset: ((req.page ?? 1) - 1) * perPage,
    });
    const visible = await Promise.all(rows.map((row) => this.mayAccess(asker, row.path, 'read')));
    return { triggers: rows.filter((_, index) => visible[index]).map(toEventTrigger) };
  }

  async delete(req: EventTriggerPathRequest): Promise<{ deleted: true }> {
    const asker = await this.askerOf(req);
    await this.readable(asker, req.kind, req.path);
    await this.requireAccess(asker, req.path, 'write');
    const deleted = await this.store.delete(asker.workspace, req.kind, req.path);
    if (!deleted) throw notFound(req.kind, req.path);
    this.supervisor.changed();
    await this.owners.revoke(
      { sealed: deleted.owner_token_sealed, prefix: deleted.owner_token_prefix },
      asker.workspace,
      eventTriggerLabel(req.kind, asker.workspace, deleted.path),
    );
    return { deleted: true };
  }

  /** Whether a trigger of the kind exists at the path (Windmill answers this to pick a free path). */
  async exists(req: EventTriggerPathRequest): Promise<{ exists: boolean }> {
    const asker = await this.askerOf(req);
    return { exists: (await this.store.find(asker.workspace, req.kind, req.path)) !== undefined };
  }

  async setMode(req: SetEventTriggerModeRequest): Promise<EventTrigger> {
    const asker = await this.askerOf(req);
    await this.readable(asker, req.kind, req.path);
    await this.requireAccess(asker, req.path, 'write');
    const mode = req.mode ?? (req.enabled ? 'enabled' : 'disabled');
    const row = await this.store.setMode(asker.workspace, req.kind, req.path, mode);
    if (!row) throw notFound(req.kind, req.path);
    this.supervisor.changed();
    return toEventTrigger(row);
  }

  /** The runnable exists and the saver may read it; the connection's resource too, and it is one of the kind. */
  private async checkSaved(asker: Asker, kind: EventTriggerKind, trigger: NewEventTrigger): Promise<void> {
    if (trigger.is_flow && trigger.error_handler_path) {
      throw issue(
        'error_handler_path',
        'applies to a script (a flow has its own failure module), as in Windmill',
      );
    }
    if (trigger.is_flow && trigger.retry) {
      throw issue('retry', "applies to a script (a flow's steps have their own retries), as in Windmill");
    }
    if (trigger.error_handler_path) {
      try {
        await this.items.getScript({
          actor: { token: asker.token },
          workspace: asker.workspace,
          path: trigger.error_handler_path,
        });
      } catch (error) {
        if (error instanceof MeshError && error.code === 'NOT_FOUND') {
          throw issue('error_handler_path', `no script ${trigger.error_handler_path} that you may run`);
        }
        throw error;
      }
    }
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
    const field = resourceFieldOf(kind);
    if (field === undefined) return;
    const path = (trigger as unknown as Record<string, string>)[field];
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
        throw issue(field, `no resource ${path} that you may read`);
      }
      throw error;
    }
    connectionOf(kind, value);
  }

  private rowOf(
    asker: Asker,
    kind: EventTriggerKind,
    trigger: NewEventTrigger,
    credential: OwnerCredential,
  ): EventTriggerWrite {
    const config = Object.fromEntries(
      Object.entries(trigger).filter(([name, value]) => !COMMON_FIELDS.has(name) && value !== undefined),
    );
    return {
      workspace_id: asker.workspace,
      kind,
      path: trigger.path,
      script_path: trigger.script_path,
      is_flow: trigger.is_flow,
      mode: trigger.mode ?? (trigger.enabled === false ? 'disabled' : 'enabled'),
      config,
      filters: trigger.filters ?? [],
      filter_logic: trigger.filter_logic ?? 'and',
      summary: trigger.summary ?? null,
      description: trigger.description ?? null,
      error_handler_path: trigger.error_handler_path ?? null,
      error_handler_args: trigger.error_handler_path ? (trigger.error_handler_args ?? null) : null,
      retry: trigger.retry ?? null,
      edited_by: asker.identity.username,
      email: asker.identity.email,
      permissioned_as: credential.permissionedAs,
      owner_token_sealed: credential.sealed,
      owner_token_prefix: credential.prefix,
    };
  }

  private async askerOf(req: {
    readonly actor: { readonly token: string };
    readonly workspace: string;
  }): Promise<Asker> {
    const identity = await this.authenticator.authenticate(req.actor.token, req.workspace);
    return { token: req.actor.token, workspace: req.workspace, identity };
  }

  /** The trigger at `path` if the asker may read it; NOT_FOUND otherwise, as if it did not exist. */
  private async readable(asker: Asker, kind: EventTriggerKind, path: string): Promise<EventTriggerRow> {
    const row = await this.store.find(asker.workspace, kind, path);
    if (!row || !(await this.mayAccess(asker, path, 'read'))) throw notFound(kind, path);
    return row;
  }

  private async requireAccess(asker: Asker, path: string, action: 'read' | 'write'): Promise<void> {
    if (!(await this.mayAccess(asker, path, action))) {
      throw new MeshError('PERMISSION_DENIED', `you may not ${action} ${path}`, { path });
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

function notFound(kind: EventTriggerKind, path: string): MeshError {
  return new MeshError('NOT_FOUND', `no ${kind} trigger at ${path}`, { path });
}

function taken(kind: EventTriggerKind, path: string): MeshError {
  return new MeshError('CONFLICT', `a ${kind} trigger already exists at ${path}`, { path });
}
