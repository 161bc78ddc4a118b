import { randomBytes } from 'node:crypto';
import { createRegistryIdentityClient, MeshError, type RegistryIdentityClient } from '@flowmesh/contracts';
import {
  startTestService,
  uniqueTestId,
  waitFor,
  type TestService,
  type TestServiceOptions,
} from '@flowmesh/testing';
import { DataSource } from 'typeorm';
import { resourceRegistryDefinition } from '../../src/resource-registry.definition.js';

/**
 * Who acts in identity and permission tests, all in workspace `main` of a registry started for the
 * test file:
 * - `admin`: the first admin (bootstrap, token from FLOWMESH_ADMIN_TOKEN);
 * - `owner`: owns folder `team` and everything under `u/owner/`;
 * - `writer`, `reader`: writer and reader of `team`, named directly;
 * - `member`: in group `devs`, which writes in `team`;
 * - `stranger`: a member with no role anywhere;
 * - `job`: a job token acting as `u/owner` with the read-only scopes of `JOB_SCOPES`;
 * - `expired`, `revoked`: tokens of `owner` that expired or were revoked.
 */
export const ACTORS = [
  'admin',
  'owner',
  'writer',
  'reader',
  'member',
  'stranger',
  'job',
  'expired',
  'revoked',
] as const;
export type ActorName = (typeof ACTORS)[number];

export const WORKSPACE = 'main';
export const FOLDER = 'team';
export const GROUP = 'devs';

/** The job's scopes: reads only, items limited to `f/team/`. */
export const JOB_SCOPES = [
  'folders:read',
  'groups:read',
  'users:read',
  'resources:read:f/team/*',
  'variables:read:f/team/*',
  'scripts:read:f/team/*',
  'flows:read:f/team/*',
];

export interface Actor {
  readonly name: ActorName;
  readonly token: string;
  /** The user behind the token (`owner` for the job, expired and revoked tokens). */
  readonly username: string;
  readonly email: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface RegistryCast {
  readonly service: TestService;
  readonly workspace: string;
  readonly registry: RegistryIdentityClient;
  readonly actors: Readonly<Record<ActorName, Actor>>;
  readonly dataSource: DataSource;
  /** An HTTP call to the registry as `token` (none: no Authorization header). */
  http(method: string, path: string, token?: string, body?: unknown): Promise<HttpAnswer>;
  /** A name no other call of this test run uses (`label_ab12cd`). */
  unique(label: string): string;
  /** A new member of `main` with an API token of their own. */
  addUser(username: string, options?: { isAdmin?: boolean }): Promise<Actor>;
  stop(): Promise<void>;
}

export function randomAdminToken(): string {
  return `fm_test_${randomBytes(24).toString('base64url')}`;
}

/** Starts a registry on its own database and subject prefix, and sets up the cast. */
export async function startRegistryCast(
  env: Record<string, string> = {},
  options: Pick<TestServiceOptions, 'logDestination'> = {},
): Promise<RegistryCast> {
  const adminToken = randomAdminToken();
  const service = await startTestService(resourceRegistryDefinition, {
    env: { FLOWMESH_ADMIN_TOKEN: adminToken, FLOWMESH_ADMIN_EMAIL: 'admin@example.test', ...env },
    ...options,
  });
  const registry = createRegistryIdentityClient(service.client);
  const admin = { token: adminToken };
  let counter = 0;
  const unique = (label: string) =>
    `${label}_${++counter}_${uniqueTestId('x')
      .slice(-6)
      .replace(/[^a-z0-9]/g, '')}`;

  const addUser = async (username: string, options: { isAdmin?: boolean } = {}): Promise<Actor> => {
    const email = `${username}@example.test`;
    await registry.addUser({
      actor: admin,
      workspace: WORKSPACE,
      email,
      username,
      isAdmin: options.isAdmin ?? false,
    });
    const { token } = await registry.createApiToken({
      actor: admin,
      workspace: WORKSPACE,
      username,
      label: 'cast',
    });
    return { name: 'stranger', token, username, email };
  };

  try {
    const people = Object.fromEntries(
      await Promise.all(
        (['owner', 'writer', 'reader', 'member', 'stranger'] as const).map(async (name) => [
          name,
          { ...(await addUser(name)), name },
        ]),
      ),
    ) as Record<'owner' | 'writer' | 'reader' | 'member' | 'stranger', Actor>;
    await registry.createGroup({ actor: admin, workspace: WORKSPACE, name: GROUP });
    await registry.addGroupMember({ actor: admin, workspace: WORKSPACE, name: GROUP, username: 'member' });
    await registry.createFolder({
      actor: admin,
      workspace: WORKSPACE,
      name: FOLDER,
      owners: ['u/owner'],
      writers: ['u/writer', `g/${GROUP}`],
      readers: ['u/reader'],
    });
    // The admin created the folder, so it is an owner too; the cast wants the roles above only.
    await registry.updateFolder({ actor: admin, workspace: WORKSPACE, name: FOLDER, owners: ['u/owner'] });

    const owner = people.owner;
    const job = await registry.issueJobToken({
      actor: { token: owner.token },
      workspace: WORKSPACE,
      jobId: 'job-cast',
      onBehalfOf: 'u/owner',
      scopes: JOB_SCOPES,
      ttlSeconds: 3600,
    });
    const revoked = await registry.createApiToken({
      actor: admin,
      workspace: WORKSPACE,
      username: 'owner',
      label: 'revoked',
    });
    await registry.revokeApiToken({
      actor: { token: revoked.token },
      workspace: WORKSPACE,
      prefix: revoked.prefix,
    });
    const expired = await registry.createApiToken({
      actor: admin,
      workspace: WORKSPACE,
      username: 'owner',
      label: 'expiring',
      expiresAt: new Date(Date.now() + 1_000).toISOString(),
    });
    await waitFor(
      () =>
        registry.whoami({ actor: { token: expired.token }, workspace: WORKSPACE }).then(
          () => false,
          (error: unknown) => error instanceof MeshError && error.code === 'UNAUTHENTICATED',
        ),
      { description: 'the expiring token to expire' },
    );

    const asOwner = (name: ActorName, token: string): Actor => ({
      name,
      token,
      username: 'owner',
      email: owner.email,
    });
    const actors: Record<ActorName, Actor> = {
      admin: { name: 'admin', token: adminToken, username: 'admin', email: 'admin@example.test' },
      ...people,
      job: asOwner('job', job.token),
      expired: asOwner('expired', expired.token),
      revoked: asOwner('revoked', revoked.token),
    };

    return {
      service,
      workspace: WORKSPACE,
      registry,
      actors,
      dataSource: service.running.app.get(DataSource),
      unique,
      addUser,
      http: async (method, path, token, body) => {
        const headers: Record<string, string> = {};
        if (token !== undefined) headers.authorization = `Bearer ${token}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(`${service.url}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined };
      },
      stop: () => service.stop(),
    };
  } catch (error) {
    await service.stop();
    throw error;
  }
}
