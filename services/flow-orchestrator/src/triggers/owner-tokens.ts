import { createRegistryIdentityClient, MeshError, type RegistryIdentityClient } from '@flowmesh/contracts';
import { JobTokenSealer } from '@flowmesh/keyring';
import { MeshClient } from '@flowmesh/messaging';
import { Injectable, Logger } from '@nestjs/common';

/** A trigger's credential as its row keeps it: never the token in clear. */
export interface OwnerCredential {
  /** The API token, sealed under the job-token keyring and bound to the trigger's label. */
  readonly sealed: string;
  /** The token's prefix, as the owner's token list shows it (and how it is revoked). */
  readonly prefix: string;
  /** `u/<user>`: whom the trigger's runs act as (Windmill's `permissioned_as`). */
  readonly permissionedAs: string;
  readonly email: string;
}

/**
 * How a trigger acts as its owner when nobody is there: a schedule's tick or a route's request
 * runs with the permissions of the last user who edited the trigger (Windmill's
 * `permissioned_as`). Saving a trigger mints an API token of that user through the registry
 * (labelled with the trigger, so the user sees it among their tokens), sealed at rest like job
 * tokens; each run issues its job token from it. Editing the trigger replaces the token, deleting
 * it revokes it; a user removed from the workspace takes their triggers' power with them.
 */
@Injectable()
export class OwnerTokens {
  private readonly log = new Logger(OwnerTokens.name);
  private readonly identity: RegistryIdentityClient;

  constructor(
    client: MeshClient,
    private readonly sealer: JobTokenSealer,
  ) {
    this.identity = createRegistryIdentityClient(client);
  }

  /** The label that names (and binds the seal of) a trigger's token, e.g. `schedule:f/team/nightly`. */
  static label(kind: string, workspace: string, path: string): string {
    return `${kind}:${workspace}/${path}`;
  }

  /** A new token of the editor (`editorToken`'s user), sealed for the trigger named by `label`. */
  async mint(editorToken: string, workspace: string, label: string): Promise<OwnerCredential> {
    const identity = await this.identity.authenticate({ token: editorToken, workspace });
    if (identity.kind !== 'user') {
      throw new MeshError(
        'PERMISSION_DENIED',
        'a trigger must be saved by a user: a job token cannot own a trigger (its runs would outlive the job)',
      );
    }
    const created = await this.identity.createApiToken({
      actor: { token: editorToken },
      workspace,
      label: `trigger ${label}`.slice(0, 200),
    });
    return {
      sealed: this.sealer.seal(created.token, label),
      prefix: created.prefix,
      permissionedAs: `u/${identity.username}`,
      email: identity.email,
    };
  }

  /** The owner's token, to start a run as (`actor.token`). */
  open(credential: Pick<OwnerCredential, 'sealed'>, label: string): string {
    return this.sealer.open(credential.sealed, label);
  }

  /**
   * Revokes a trigger's token (the token revokes itself, so no other credential is needed). Best
   * effort: a token already revoked, or whose user left, is no longer a credential anyway.
   */
  async revoke(
    credential: Pick<OwnerCredential, 'sealed' | 'prefix'>,
    workspace: string,
    label: string,
  ): Promise<void> {
    try {
      const token = this.open(credential, label);
      await this.identity.revokeApiToken({ actor: { token }, workspace, prefix: credential.prefix });
    } catch (error) {
      const reason = error instanceof MeshError ? error.code : 'error';
      this.log.warn(`the token of trigger ${label} was not revoked (${reason}); it may be revoked already`);
    }
  }
}
