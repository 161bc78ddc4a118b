import {
  createRegistryIdentityClient,
  MeshError,
  orchestratorSchedulesContract as contract,
  type RegistryIdentityClient,
  type Schedule,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';
import type { z } from 'zod';
import { ActorCallerResolver } from '../../http/actor-caller.resolver.js';
import type { Caller } from '../../http/caller.js';
import { CancelJobUseCase } from '../../jobs/cancel-job.use-case.js';
import { OwnerTokens } from '../owner-tokens.js';
import type { CronSchedule } from './cron-schedule.js';
import {
  ScheduleStore,
  scheduleOf,
  type ScheduleOwner,
  type ScheduleRow,
  type ScheduleSettings,
} from './schedule.store.js';
import { ScheduleValidator } from './schedule.validator.js';

type Req<K extends keyof typeof contract> = z.output<(typeof contract)[K]['request']>;

const DEFAULT_PREVIEW = 5;
const DEFAULT_PER_PAGE = 100;

/** The label a schedule's owner token is sealed for (and named by among its owner's tokens). */
export function scheduleTokenLabel(workspace: string, path: string): string {
  return OwnerTokens.label('schedule', workspace, path);
}

/** The first tick after `from`, or after the pause when it ends later (Windmill's `paused_until`). */
export function firstTick(cron: CronSchedule, from: Date, pausedUntil: Date | null): Date | null {
  return cron.nextAfter(pausedUntil && pausedUntil > from ? pausedUntil : from);
}

/**
 * The schedule use cases, one per `orchestrator.schedule.*` request, as the caller whose `actor`
 * token the registry vouches for: the HTTP controller and the NATS handler both call these.
 * A schedule is read with read access to its path and written with write access (the registry's
 * rules for `u/<user>/...` and folders); one the caller may not read is NOT_FOUND. Saving a
 * schedule checks it as its editor (`ScheduleValidator`) and makes the editor its owner: its
 * runs act as them, with a token minted for it (`OwnerTokens`), replaced on each edit and
 * revoked on delete.
 */
@Injectable()
export class SchedulesApi {
  private readonly log = new Logger(SchedulesApi.name);
  private readonly identity: RegistryIdentityClient;

  constructor(
    private readonly callers: ActorCallerResolver,
    private readonly store: ScheduleStore,
    private readonly validator: ScheduleValidator,
    private readonly owners: OwnerTokens,
    private readonly cancels: CancelJobUseCase,
    mesh: MeshClient,
  ) {
    this.identity = createRegistryIdentityClient(mesh);
  }

  async create(req: Req<'create'>): Promise<{ path: string }> {
    const caller = await this.callers.callerOf(req);
    await this.mayWrite(caller, req.path);
    if (await this.store.exists(req.workspace, req.path))
      throw new MeshError('CONFLICT', `schedule ${req.path} already exists`, { path: req.path });
    const settings = settingsOf(req);
    const cron = await this.validator.check({
      token: req.actor.token,
      workspace: req.workspace,
      schedule: req.schedule,
      timezone: req.timezone,
      scriptPath: req.script_path,
      isFlow: req.is_flow,
      args: req.args ?? {},
      handlers: { on_failure: req.on_failure, on_recovery: req.on_recovery, on_success: req.on_success },
      retry: req.retry,
    });
    const enabled = req.enabled ?? true;
    const owner = await this.mint(caller, req.path);
    const label = scheduleTokenLabel(req.workspace, req.path);
    const inserted = await this.unlessFailed(owner, req.workspace, label, () =>
      this.store.insert({
        workspace_id: req.workspace,
        path: req.path,
        edited_at: new Date(),
        enabled,
        script_path: req.script_path,
        is_flow: req.is_flow,
        error: null,
        ...settings,
        ...owner,
        next_fire_at: enabled ? firstTick(cron, new Date(), settings.paused_until) : null,
      }),
    );
    if (!inserted) {
      await this.owners.revoke(sealedOf(owner), req.workspace, label);
      throw new MeshError('CONFLICT', `schedule ${req.path} already exists`, { path: req.path });
    }
    return { path: req.path };
  }

  async get(req: Req<'get'>): Promise<Schedule> {
    const { row } = await this.readable(req);
    return scheduleOf(row);
  }

  async exists(req: Req<'exists'>): Promise<{ exists: boolean }> {
    // As Windmill's `exists`: whether the path is taken, for a member of the workspace.
    await this.callers.callerOf(req);
    return { exists: await this.store.exists(req.workspace, req.path) };
  }

  async list({ actor, workspace, ...filter }: Req<'list'>): Promise<{ schedules: Schedule[] }> {
    const caller = await this.callers.callerOf({ actor, workspace });
    const perPage = filter.per_page ?? DEFAULT_PER_PAGE;
    const rows = await this.store.list(workspace, {
      ...(filter.path === undefined ? {} : { scriptPath: filter.path }),
      ...(filter.is_flow === undefined ? {} : { isFlow: filter.is_flow }),
      ...(filter.path_start === undefined ? {} : { pathStart: filter.path_start }),
      ...(filter.args === undefined ? {} : { args: filter.args }),
      limit: perPage,
      offset: ((filter.page ?? 1) - 1) * perPage,
    });
    const readable = await this.readablePaths(
      caller,
      rows.map((row) => row.path),
    );
    return { schedules: rows.filter((row) => readable.has(row.path)).map(scheduleOf) };
  }

  async update({ actor, workspace, path, ...edit }: Req<'update'>): Promise<{ path: string }> {
    const { caller, row } = await this.readable({ actor, workspace, path });
    await this.mayWrite(caller, path);
    const settings = settingsOf(edit);
    const cron = await this.validator.check({
      token: actor.token,
      workspace,
      schedule: edit.schedule,
      timezone: edit.timezone,
      scriptPath: row.script_path,
      isFlow: row.is_flow,
      args: edit.args ?? {},
      handlers: { on_failure: edit.on_failure, on_recovery: edit.on_recovery, on_success: edit.on_success },
      retry: edit.retry,
    });
    const owner = await this.mint(caller, path);
    const label = scheduleTokenLabel(workspace, path);
    const updated = await this.unlessFailed(owner, workspace, label, () =>
      this.store.update(workspace, path, settings, owner, (enabled) =>
        enabled ? firstTick(cron, new Date(), settings.paused_until) : null,
      ),
    );
    if (!updated) {
      await this.owners.revoke(sealedOf(owner), workspace, label);
      throw notFound(path);
    }
    await this.owners.revoke(sealedOf(updated.before), workspace, label);
    await this.cancelPending(caller, workspace, path, updated.pending, 'edited');
    return { path };
  }

  async delete(req: Req<'delete'>): Promise<{ path: string; deleted: boolean }> {
    const { caller } = await this.readable(req);
    await this.mayWrite(caller, req.path);
    const deleted = await this.store.delete(req.workspace, req.path);
    if (!deleted) throw notFound(req.path);
    await this.owners.revoke(
      sealedOf(deleted.row),
      req.workspace,
      scheduleTokenLabel(req.workspace, req.path),
    );
    await this.cancelPending(caller, req.workspace, req.path, deleted.pending, 'deleted');
    return { path: req.path, deleted: true };
  }

  async setEnabled(req: Req<'setEnabled'>): Promise<{ path: string; enabled: boolean }> {
    const { caller } = await this.readable(req);
    await this.mayWrite(caller, req.path);
    const pending = await this.store.setEnabled(
      req.workspace,
      req.path,
      req.enabled,
      caller.identity.email,
      (row) => firstTick(this.validator.cron(row.schedule, row.timezone), new Date(), row.paused_until),
    );
    if (!pending) throw notFound(req.path);
    await this.cancelPending(caller, req.workspace, req.path, pending, req.enabled ? 'enabled' : 'disabled');
    return { path: req.path, enabled: req.enabled };
  }

  async preview(req: Req<'preview'>): Promise<{ next: string[] }> {
    await this.callers.callerOf(req);
    const cron = this.validator.cron(req.schedule, req.timezone);
    return {
      next: cron.upcoming(req.count ?? DEFAULT_PREVIEW, new Date()).map((tick) => tick.toISOString()),
    };
  }

  private async readable(req: {
    actor: { token: string };
    workspace: string;
    path: string;
  }): Promise<{ caller: Caller; row: ScheduleRow }> {
    const caller = await this.callers.callerOf(req);
    const row = await this.store.get(req.workspace, req.path);
    if (!row || !(await this.allowed(caller, req.path, 'read'))) throw notFound(req.path);
    return { caller, row };
  }

  private async mayWrite(caller: Caller, path: string): Promise<void> {
    if (!(await this.allowed(caller, path, 'write')))
      throw new MeshError('PERMISSION_DENIED', `you may not write schedules at ${path}`, { path });
  }

  private async allowed(caller: Caller, path: string, action: 'read' | 'write'): Promise<boolean> {
    if (caller.identity.isAdmin && caller.identity.scopes === undefined) return true;
    const reply = await this.identity.checkAccess({
      actor: caller.actor,
      workspace: caller.identity.workspace,
      path,
      action,
    });
    return reply.allowed;
  }

  private async readablePaths(caller: Caller, paths: readonly string[]): Promise<Set<string>> {
    const distinct = [...new Set(paths)];
    const allowed = await Promise.all(distinct.map((path) => this.allowed(caller, path, 'read')));
    return new Set(distinct.filter((_, i) => allowed[i]));
  }

  private async mint(caller: Caller, path: string): Promise<ScheduleOwner> {
    const workspace = caller.identity.workspace;
    const minted = await this.owners.mint(caller.actor.token, workspace, scheduleTokenLabel(workspace, path));
    return {
      edited_by: minted.permissionedAs.replace(/^u\//, ''),
      email: minted.email,
      permissioned_as: minted.permissionedAs,
      owner_token: minted.sealed,
      owner_token_prefix: minted.prefix,
    };
  }

  /** `write`, revoking the token just minted for it should it fail: no token outlives its save. */
  private async unlessFailed<T>(
    owner: ScheduleOwner,
    workspace: string,
    label: string,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await this.owners.revoke(sealedOf(owner), workspace, label);
      throw error;
    }
  }

  /** Runs started ahead of a tick that has not come: Windmill clears them when a schedule changes. */
  private async cancelPending(
    caller: Caller,
    workspace: string,
    path: string,
    jobIds: readonly string[],
    why: string,
  ): Promise<void> {
    const by = caller.identity.username ?? caller.identity.email;
    for (const id of jobIds) {
      await this.cancels.cancel(workspace, id, by, `schedule ${path} was ${why}`).catch((error: unknown) => {
        // Not there yet: its tick was being started, and the ticker withdraws it once started.
        if (error instanceof MeshError && error.code === 'NOT_FOUND') return;
        this.log.warn(`a pending run of schedule ${path} was not cancelled: ${String(error)}`);
      });
    }
  }
}

function settingsOf(
  input:
    | z.output<typeof contract.update.request>
    | Req<'create'>
    | Omit<Req<'update'>, 'actor' | 'workspace' | 'path'>,
): ScheduleSettings {
  return {
    schedule: input.schedule,
    timezone: input.timezone,
    args: input.args ?? null,
    on_failure: input.on_failure ?? null,
    on_failure_times: input.on_failure_times ?? null,
    on_failure_exact: input.on_failure_exact ?? null,
    on_failure_extra_args: input.on_failure_extra_args ?? null,
    on_recovery: input.on_recovery ?? null,
    on_recovery_times: input.on_recovery_times ?? null,
    on_recovery_extra_args: input.on_recovery_extra_args ?? null,
    on_success: input.on_success ?? null,
    on_success_extra_args: input.on_success_extra_args ?? null,
    ws_error_handler_muted: input.ws_error_handler_muted ?? false,
    retry: input.retry ?? null,
    summary: input.summary ?? null,
    description: input.description ?? null,
    no_flow_overlap: input.no_flow_overlap ?? false,
    tag: input.tag ?? null,
    paused_until: input.paused_until ? new Date(input.paused_until) : null,
    cron_version: input.cron_version ?? 'v2',
  };
}

function sealedOf(owner: Pick<ScheduleOwner, 'owner_token' | 'owner_token_prefix'>) {
  return { sealed: owner.owner_token, prefix: owner.owner_token_prefix };
}

function notFound(path: string): MeshError {
  return new MeshError('NOT_FOUND', `schedule ${path} not found`, { path });
}
