import { AuthenticationCache } from '@flowmesh/http';
import { MESH_AUTHENTICATOR } from '@flowmesh/messaging';
import { PersistenceModule } from '@flowmesh/persistence';
import type { Logger } from '@flowmesh/telemetry';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AccessService } from '../access/access.service.js';
import { CheckAccessHandler } from '../access/check-access.handler.js';
import { AuthenticateHandler } from '../auth/authenticate.handler.js';
import { AuthenticateService } from '../auth/authenticate.service.js';
import { authenticationCache } from '../auth/authenticated.js';
import { BearerAuthGuard } from '../auth/bearer-auth.guard.js';
import { IdentityRepository } from '../auth/identity.repository.js';
import { IdentityEventWriter } from './identity-event.writer.js';
import { FolderEntity } from '../folders/folder.entity.js';
import { FolderRepository } from '../folders/folder.repository.js';
import { GroupMemberEntity } from '../groups/group-member.entity.js';
import { WorkspaceGroupEntity } from '../groups/workspace-group.entity.js';
import { ApiTokenEntity } from '../tokens/api-token.entity.js';
import { IssueJobTokenHandler } from '../tokens/issue-job-token.handler.js';
import { IssueJobTokenUseCase } from '../tokens/issue-job-token.use-case.js';
import { JobTokenSigner } from '../tokens/job-token.signer.js';
import { AccountEntity } from '../users/account.entity.js';
import { WorkspaceUserEntity } from '../users/workspace-user.entity.js';
import { WorkspaceEntity } from '../workspaces/workspace.entity.js';
import { FolderPrincipalsValidator } from '../folders/folder-principals.validator.js';
import { FoldersController } from '../folders/folders.controller.js';
import { FoldersHandler } from '../folders/folders.handler.js';
import { FoldersService } from '../folders/folders.service.js';
import { GroupRepository } from '../groups/group.repository.js';
import { GroupsController } from '../groups/groups.controller.js';
import { GroupsHandler } from '../groups/groups.handler.js';
import { GroupsService } from '../groups/groups.service.js';
import { ApiTokenRepository } from '../tokens/api-token.repository.js';
import { ApiTokensController } from '../tokens/api-tokens.controller.js';
import { ApiTokensHandler } from '../tokens/api-tokens.handler.js';
import { ApiTokensService } from '../tokens/api-tokens.service.js';
import { UserRepository } from '../users/user.repository.js';
import { UsersController } from '../users/users.controller.js';
import { UsersHandler } from '../users/users.handler.js';
import { UsersService } from '../users/users.service.js';
import { WorkspaceRepository } from '../workspaces/workspace.repository.js';
import { WorkspacesController } from '../workspaces/workspaces.controller.js';
import { WorkspacesHandler } from '../workspaces/workspaces.handler.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import {
  AdminBootstrapOnStart,
  ADMIN_TOKEN_OUTPUT,
  stdoutAdminTokenOutput,
} from './admin-bootstrap.on-start.js';
import { AdminBootstrapService } from './admin-bootstrap.service.js';
import { AdminInitHandler } from './admin-init.handler.js';
import type { IdentityConfig } from './identity.config.js';
import { IDENTITY_CONFIG, IDENTITY_LOGGER } from './identity.tokens.js';

/** Entities of identities and permissions; the root module lists them in its data source. */
export const IDENTITY_ENTITIES = [
  AccountEntity,
  WorkspaceEntity,
  WorkspaceUserEntity,
  WorkspaceGroupEntity,
  GroupMemberEntity,
  FolderEntity,
  ApiTokenEntity,
];

/**
 * Workspaces, users, groups, folders, tokens, and the access checks every other part of the
 * registry calls: `AccessService`, `BearerAuthGuard`, `@CurrentIdentity()` and `@MeshCaller()` are
 * available everywhere.
 */
@Global()
@Module({})
export class IdentityModule {
  static forRoot(config: IdentityConfig, logger: Logger): DynamicModule {
    return {
      module: IdentityModule,
      imports: [PersistenceModule.forFeature(IDENTITY_ENTITIES)],
      controllers: [
        AuthenticateHandler,
        CheckAccessHandler,
        IssueJobTokenHandler,
        AdminInitHandler,
        WorkspacesHandler,
        WorkspacesController,
        UsersHandler,
        UsersController,
        GroupsHandler,
        GroupsController,
        FoldersHandler,
        FoldersController,
        ApiTokensHandler,
        ApiTokensController,
      ],
      providers: [
        { provide: IDENTITY_CONFIG, useValue: config },
        { provide: IDENTITY_LOGGER, useValue: logger },
        { provide: JobTokenSigner, useFactory: () => createJobTokenSigner(config, logger) },
        { provide: AuthenticationCache, useValue: authenticationCache(config.authCacheMs) },
        IdentityRepository,
        IdentityEventWriter,
        AuthenticateService,
        FolderRepository,
        AccessService,
        // `@MeshCaller()` on the request handlers authenticates through the access checks.
        { provide: MESH_AUTHENTICATOR, useExisting: AccessService },
        BearerAuthGuard,
        IssueJobTokenUseCase,
        { provide: ADMIN_TOKEN_OUTPUT, useValue: stdoutAdminTokenOutput },
        AdminBootstrapService,
        AdminBootstrapOnStart,
        WorkspaceRepository,
        WorkspacesService,
        UserRepository,
        UsersService,
        GroupRepository,
        GroupsService,
        FolderPrincipalsValidator,
        FoldersService,
        ApiTokenRepository,
        ApiTokensService,
      ],
      exports: [
        AccessService,
        AuthenticateService,
        AuthenticationCache,
        BearerAuthGuard,
        FolderRepository,
        MESH_AUTHENTICATOR,
      ],
    };
  }
}

function createJobTokenSigner(config: IdentityConfig, logger: Logger): JobTokenSigner {
  if (config.jobTokenKey === undefined) {
    logger.warn(
      'FLOWMESH_JOB_TOKEN_KEY is not set: job tokens are signed with a key generated for this process, so another registry replica or a restart will refuse them (set it when running more than one replica; it is required with NODE_ENV=production)',
    );
  }
  return new JobTokenSigner(config.jobTokenKey);
}
