import {
  createRegistryDraftsClient,
  createRegistryIdentityClient,
  createRegistryItemsClient,
  MeshError,
  type Flow,
  type RegistryDraftsClient,
  type RegistryItemsClient,
  type Script,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable } from '@nestjs/common';
import { JobTokenBatcher } from './job-token.batcher.js';

const SCRIPT_CACHE_LIMIT = 1_000;

/**
 * What the engine asks the resource-registry, always as a token (the caller's when a run
 * starts, the run's job token after): job tokens, saved flows and scripts, interpolation.
 */
@Injectable()
export class RegistryGateway {
  private readonly jobTokens: JobTokenBatcher;
  private readonly items: RegistryItemsClient;
  private readonly drafts: RegistryDraftsClient;
  /** A script version by hash never changes: kept per workspace and hash. */
  private readonly scriptsByHash = new Map<string, Script>();

  constructor(client: MeshClient) {
    this.jobTokens = new JobTokenBatcher(createRegistryIdentityClient(client));
    this.items = createRegistryItemsClient(client);
    this.drafts = createRegistryDraftsClient(client);
  }

  issueJobToken(request: {
    token: string;
    workspace: string;
    jobId: string;
    onBehalfOf: string;
    scopes?: string[];
    ttlSeconds: number;
    /** The path the job runs: a run token covering it gets a token with its principal's permissions. */
    runPath?: string;
    /** What runs at `runPath`, for run scopes limited to flows or scripts. */
    runKind?: 'flows' | 'scripts';
  }): Promise<{ token: string; expiresAt: string }> {
    return this.jobTokens.issue({
      actor: { token: request.token },
      workspace: request.workspace,
      jobId: request.jobId,
      onBehalfOf: request.onBehalfOf,
      ...(request.scopes ? { scopes: request.scopes } : {}),
      ttlSeconds: request.ttlSeconds,
      ...(request.runPath ? { runPath: request.runPath } : {}),
      ...(request.runKind ? { runKind: request.runKind } : {}),
    });
  }

  getFlow(token: string, workspace: string, path: string): Promise<Flow> {
    return this.items.getFlow({ actor: { token }, workspace, path });
  }

  async getScript(token: string, workspace: string, path: string, hash?: string): Promise<Script> {
    const key = hash ? `${workspace}:${hash}` : undefined;
    const cached = key ? this.scriptsByHash.get(key) : undefined;
    if (cached && cached.path === path) {
      // The version is immutable, but whether this token may read it is not: ask (cheaply).
      const { exists } = await this.items.scriptExists({ actor: { token }, workspace, path });
      if (exists) return cached;
    }
    const script = await this.items.getScript({
      actor: { token },
      workspace,
      path,
      ...(hash ? { hash } : {}),
    });
    if (key) {
      if (this.scriptsByHash.size >= SCRIPT_CACHE_LIMIT) this.scriptsByHash.clear();
      this.scriptsByHash.set(key, script);
    }
    return script;
  }

  /** A resource's value as stored (its references left as they are), read as `token`. */
  async getResourceValue(token: string, workspace: string, path: string): Promise<unknown> {
    return (await this.items.getResourceValue({ actor: { token }, workspace, path })).value;
  }

  /** The value in the token's user's draft of a resource; undefined when there is none. */
  async getResourceDraftValue(token: string, workspace: string, path: string): Promise<unknown> {
    try {
      const draft = await this.drafts.get({
        actor: { token },
        workspace,
        draft: { item_kind: 'resource', path },
      });
      return (draft.value as { value?: unknown }).value;
    } catch (error) {
      if (error instanceof MeshError && error.code === 'NOT_FOUND') return undefined;
      throw error;
    }
  }

  /** `value` with every `$var:`/`$res:` reference resolved as `token`. */
  async interpolate(token: string, workspace: string, value: unknown): Promise<unknown> {
    return (await this.items.interpolate({ actor: { token }, workspace, value })).value;
  }
}

const REFERENCE = /^\$(?:var|res):/;

/** Whether a value holds a string that is exactly a `$var:`/`$res:` reference (then it needs the registry). */
export function hasReferences(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') return REFERENCE.test(value);
  if (Array.isArray(value)) return value.some((item) => hasReferences(item, depth + 1));
  if (value !== null && typeof value === 'object')
    return Object.values(value).some((item) => hasReferences(item, depth + 1));
  return false;
}

export function meshErrorName(error: unknown): string {
  return error instanceof MeshError ? error.code : error instanceof Error ? error.name : 'Error';
}
