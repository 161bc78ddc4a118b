import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import type { IdentityConfig } from './identity.config.js';
import { IDENTITY_CONFIG, IDENTITY_LOGGER } from './identity.tokens.js';

/** Where the generated admin token goes: one plain line on stdout, the only place a token is ever printed. */
export const ADMIN_TOKEN_OUTPUT = Symbol.for('flowmesh.registry.admin-token-output');
export type AdminTokenOutput = (line: string) => void;

export const stdoutAdminTokenOutput: AdminTokenOutput = (line) => {
  process.stdout.write(line);
};

/** On start, a fresh database gets the workspace `main` and its first admin (unless FLOWMESH_BOOTSTRAP=off). */
@Injectable()
export class AdminBootstrapOnStart implements OnApplicationBootstrap {
  constructor(
    private readonly bootstrap: AdminBootstrapService,
    @Inject(IDENTITY_CONFIG) private readonly config: IdentityConfig,
    @Inject(IDENTITY_LOGGER) private readonly logger: Logger,
    @Inject(ADMIN_TOKEN_OUTPUT) private readonly output: AdminTokenOutput,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.bootstrapOnStart) return;
    const result = await this.bootstrap.init(this.config.adminToken);
    if (result.created) {
      const source =
        result.token === undefined
          ? 'its token is FLOWMESH_ADMIN_TOKEN'
          : 'its token is printed once on stdout';
      this.logger.info(
        { workspace: result.workspace, username: result.username, email: result.email },
        `created workspace "${result.workspace}" and its first admin ${result.email}; ${source}`,
      );
      if (result.token !== undefined) {
        this.output(
          `flowmesh: first admin ${result.email} of workspace "${result.workspace}", API token (shown once, keep it): ${result.token}\n`,
        );
      }
    } else if (
      this.config.adminToken !== undefined &&
      !(await this.bootstrap.knowsToken(this.config.adminToken))
    ) {
      this.logger.warn(
        `FLOWMESH_ADMIN_TOKEN is set but the database already has its first admin (${result.email}); the variable is ignored`,
      );
    }
  }
}
