import {
  MeshError,
  narrowScopes,
  runScopeCovers,
  type CallerIdentity,
  type ErrorEnvelope,
} from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';
import type { z } from 'zod';
import type { registryIdentityContract } from '@flowmesh/contracts';
import { AuthenticateService } from '../auth/authenticate.service.js';
import { JobTokenSigner } from './job-token.signer.js';

type IssueJobTokenRequest = z.output<typeof registryIdentityContract.issueJobToken.request>;
type IssuedOrRefused = { ok: true; token: string; expiresAt: string } | { ok: false; error: ErrorEnvelope };

/**
 * Job tokens: a job acts as one principal (`u/<user>`, `g/<group>` or a user's email) with scopes
 * within the issuer's (or, for a run a run token may start, `runPath`, the principal's own
 * permissions), until an expiry no later than the issuer's own token's.
 */
@Injectable()
export class IssueJobTokenUseCase {
  private readonly log = new Logger(IssueJobTokenUseCase.name);

  constructor(
    private readonly auth: AuthenticateService,
    private readonly signer: JobTokenSigner,
  ) {}

  async issue(req: IssueJobTokenRequest, now = new Date()): Promise<{ token: string; expiresAt: string }> {
    const { identity: actor, expiresAt: actorExpiry } = await this.auth.authenticate(
      req.actor.token,
      req.workspace,
      now,
    );
    await this.assertMayActAs(actor, req.onBehalfOf);
    // A run token starting a run of a path its `jobs:run` scopes cover: the run acts with the
    // principal's own permissions (its scopes narrowed only as asked), as Windmill's
    // webhook-specific tokens start runs that act as their user.
    const runsAsPrincipal =
      req.runPath !== undefined && runScopeCovers(actor.scopes, req.runPath, req.runKind);
    const scopes = narrowScopes(runsAsPrincipal ? undefined : actor.scopes, req.scopes);
    const requested = now.getTime() + req.ttlSeconds * 1000;
    const expiresAtMs = actorExpiry === null ? requested : Math.min(requested, actorExpiry.getTime());
    const exp = Math.floor(expiresAtMs / 1000);
    const token = this.signer.sign({
      v: 1,
      workspace: req.workspace,
      jobId: req.jobId,
      onBehalfOf: req.onBehalfOf,
      ...(scopes === undefined ? {} : { scopes }),
      exp,
    });
    return { token, expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** Each request on its own, as `issue` answers it: one refused does not refuse the others. */
  async issueMany(
    requests: readonly IssueJobTokenRequest[],
    now = new Date(),
  ): Promise<{ results: IssuedOrRefused[] }> {
    const results = await Promise.all(
      requests.map(async (req): Promise<IssuedOrRefused> => {
        try {
          return { ok: true, ...(await this.issue(req, now)) };
        } catch (error) {
          return { ok: false, error: this.envelopeOf(error) };
        }
      }),
    );
    return { results };
  }

  /** As the transport answers a failed request: a MeshError as it is, anything else INTERNAL (and logged). */
  private envelopeOf(error: unknown): ErrorEnvelope {
    if (error instanceof MeshError) return error.toEnvelope();
    this.log.error('issuing a job token failed', error instanceof Error ? error.stack : String(error));
    return { code: 'INTERNAL', message: 'internal error' };
  }

  private async assertMayActAs(actor: CallerIdentity, onBehalfOf: string): Promise<void> {
    if (actor.kind === 'job') {
      if (onBehalfOf === actor.onBehalfOf) return;
      throw new MeshError(
        'PERMISSION_DENIED',
        `a job token acting as ${actor.onBehalfOf ?? actor.username} may only issue job tokens acting as the same principal, not ${onBehalfOf}`,
      );
    }
    const self = onBehalfOf === `u/${actor.username}` || onBehalfOf === actor.email;
    const ownGroup = onBehalfOf.startsWith('g/') && actor.groups.includes(onBehalfOf.slice(2));
    if (self || ownGroup) return;
    if (!actor.isAdmin) {
      throw new MeshError(
        'PERMISSION_DENIED',
        `${actor.username} may not issue a job token acting as ${onBehalfOf}`,
      );
    }
    if (!(await this.auth.resolvePrincipal(actor.workspace, onBehalfOf))) {
      throw new MeshError('NOT_FOUND', `${onBehalfOf} not found in workspace "${actor.workspace}"`, {
        onBehalfOf,
      });
    }
  }
}
