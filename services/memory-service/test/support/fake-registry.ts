import {
  AccessCheckRequestSchema,
  AuthenticateRequestSchema,
  MeshError,
  registryIdentityContract,
  type CallerIdentity,
} from '@flowmesh/contracts';
import type { MeshConnection } from '@flowmesh/messaging';
import type { Subscription } from '@nats-io/nats-core';
import type { z } from 'zod';

/** What one token may do in the fixed permission table of a test. */
export interface TokenGrant {
  readonly workspace: string;
  readonly username: string;
  /** Path prefixes (`f/team/`) or exact paths the token may read. */
  readonly read: readonly string[];
  readonly write: readonly string[];
}

export type AccessCheck = z.output<typeof AccessCheckRequestSchema>;

/**
 * The two resource-registry requests memory-service asks (`registry.access.check`,
 * `registry.auth.authenticate`), answered from a fixed table on the test's subject prefix. A real
 * NATS handler with the real contract schemas and envelopes, so the service under test talks to
 * it exactly as it will to the registry. Unknown workspace: NOT_FOUND; unknown token: UNAUTHENTICATED.
 */
export class FakeRegistry {
  readonly checks: AccessCheck[] = [];
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly conn: MeshConnection,
    private readonly workspaces: readonly string[],
    private readonly tokens: Readonly<Record<string, TokenGrant>>,
  ) {}

  async start(): Promise<void> {
    this.serve(registryIdentityContract.checkAccess.subject, (body) => {
      const request = AccessCheckRequestSchema.parse(body);
      this.checks.push(request);
      const grant = this.grantFor(request.actor.token, request.workspace);
      const paths = request.action === 'read' ? [...grant.read, ...grant.write] : grant.write;
      return {
        allowed: paths.some((path) =>
          path.endsWith('/') ? request.path.startsWith(path) : request.path === path,
        ),
      };
    });
    this.serve(registryIdentityContract.authenticate.subject, (body) => {
      const request = AuthenticateRequestSchema.parse(body);
      const grant = this.grantFor(request.token, request.workspace);
      const identity: CallerIdentity = {
        workspace: grant.workspace,
        kind: 'user',
        username: grant.username,
        email: `${grant.username}@example.com`,
        isAdmin: false,
        groups: ['all'],
      };
      return identity;
    });
    await this.conn.nc.flush();
  }

  stop(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  private grantFor(token: string, workspace: string): TokenGrant {
    if (!this.workspaces.includes(workspace)) {
      throw new MeshError('NOT_FOUND', `workspace "${workspace}" not found`, { workspace });
    }
    const grant = this.tokens[token];
    if (!grant || grant.workspace !== workspace) {
      throw new MeshError('UNAUTHENTICATED', `the token is not valid in workspace "${workspace}"`);
    }
    return grant;
  }

  private serve(relativeSubject: string, answer: (body: unknown) => unknown): void {
    const subscription = this.conn.nc.subscribe(this.conn.space.subject(relativeSubject), {
      callback: (error, message) => {
        if (error) return;
        let reply: unknown;
        try {
          reply = { ok: true, data: answer(message.json()) };
        } catch (failure) {
          const envelope =
            failure instanceof MeshError
              ? failure.toEnvelope()
              : { code: 'INTERNAL', message: String(failure) };
          reply = { ok: false, error: envelope };
        }
        message.respond(JSON.stringify(reply));
      },
    });
    this.subscriptions.push(subscription);
  }
}
