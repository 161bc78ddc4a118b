import { randomBytes } from 'node:crypto';
import { meshNatsUsers, type NatsPermissions } from '@flowmesh/contracts';

/** One NATS user of a mesh: its name, its secret, what it may do. */
export interface MeshNatsUser {
  readonly user: string;
  /** Plain text, or a bcrypt hash (`$2a$...`) in a server's configuration. */
  readonly password: string;
  readonly permissions: NatsPermissions;
}

/** A password for a NATS user: 32 random bytes, URL-safe, so it can sit in a `nats://` URL as is. */
export function generateNatsPassword(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Every user of a mesh on `prefix` (a process each, and the CLI), with the password
 * `passwordOf` gives each (kept from an earlier run, or new).
 */
export function meshNatsCredentials(prefix: string, passwordOf: (user: string) => string): MeshNatsUser[] {
  return meshNatsUsers(prefix).map(({ user, permissions }) => ({
    user,
    password: passwordOf(user),
    permissions,
  }));
}

/**
 * nats-server's `authorization` block for these users, as the server's configuration syntax
 * (a JSON superset) reads it. No user means no anonymous client: the server refuses a
 * connection without credentials once any user is configured.
 */
export function natsAuthorizationBlock(users: readonly MeshNatsUser[]): string {
  const block = {
    users: users.map(({ user, password, permissions }) => ({ user, password, permissions })),
  };
  return `authorization: ${JSON.stringify(block, null, 2)}\n`;
}

/**
 * `nats://user:password@host:port`, the form `connectMesh` takes credentials in. Users are process
 * names and passwords URL-safe, so nothing needs escaping (the NATS client does not unescape).
 */
export function natsUrlWithCredentials(url: string, user: string, password: string): string {
  if (!/^[A-Za-z0-9_.-]+$/.test(user) || !/^[A-Za-z0-9_.~-]+$/.test(password)) {
    throw new Error(`NATS user ${user}: user and password must be URL-safe`);
  }
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = password;
  return parsed.toString().replace(/\/$/, '');
}
