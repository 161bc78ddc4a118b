import {
  createContractClient,
  defineRequest,
  SAFE_TO_REPEAT,
  type RequestTransport,
} from '../messaging/contract.js';
import {
  AccessCheckReplySchema,
  AccessCheckRequestSchema,
  AdminInitReplySchema,
  AdminInitRequestSchema,
  AuthenticateRequestSchema,
  CallerIdentitySchema,
  IssuedTokenSchema,
  IssueJobTokenRequestSchema,
  IssueJobTokensReplySchema,
  IssueJobTokensRequestSchema,
} from './identity.schema.js';
import {
  AddUserRequestSchema,
  CreateApiTokenRequestSchema,
  CreatedApiTokenSchema,
  CreateFolderRequestSchema,
  CreateGroupRequestSchema,
  CreateWorkspaceRequestSchema,
  DeleteFolderRequestSchema,
  DeleteGroupRequestSchema,
  DoneReplySchema,
  FolderSchema,
  GetFolderRequestSchema,
  GetGroupRequestSchema,
  GetUserRequestSchema,
  GroupMemberRequestSchema,
  GroupSchema,
  ListApiTokensReplySchema,
  ListApiTokensRequestSchema,
  ListFoldersReplySchema,
  ListFoldersRequestSchema,
  ListGroupsReplySchema,
  ListGroupsRequestSchema,
  ListUsersReplySchema,
  ListUsersRequestSchema,
  ListWorkspacesReplySchema,
  ListWorkspacesRequestSchema,
  RemoveUserRequestSchema,
  RevokeApiTokenRequestSchema,
  UpdateFolderRequestSchema,
  UpdateUserRequestSchema,
  UserSchema,
  WhoamiRequestSchema,
  WorkspaceSchema,
} from './identity-directory.schema.js';

/**
 * Identities and permissions, answered by resource-registry: who a token is, whether it may touch
 * a path, job tokens, and the workspaces, users, groups, folders and API tokens behind them.
 */
export const registryIdentityContract = {
  /** The identity of `token` in `workspace`; UNAUTHENTICATED for a bad, expired or revoked token. */
  authenticate: defineRequest(
    'registry.auth.authenticate',
    AuthenticateRequestSchema,
    CallerIdentitySchema,
    SAFE_TO_REPEAT,
  ),
  /** Whether the actor may read or write `path` (false, never an error, for one it may not read). */
  checkAccess: defineRequest(
    'registry.access.check',
    AccessCheckRequestSchema,
    AccessCheckReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** A short-lived job token acting as `onBehalfOf`, its scopes within the actor's. */
  issueJobToken: defineRequest(
    'registry.token.issue_job',
    IssueJobTokenRequestSchema,
    IssuedTokenSchema,
    SAFE_TO_REPEAT,
  ),
  /** `issueJobToken` for several runs at once; each answered (or refused) on its own. */
  issueJobTokens: defineRequest(
    'registry.token.issue_jobs',
    IssueJobTokensRequestSchema,
    IssueJobTokensReplySchema,
    SAFE_TO_REPEAT,
  ),
  /** Creates the workspace `main` and its first admin when the database has none; idempotent. */
  adminInit: defineRequest(
    'registry.admin.init',
    AdminInitRequestSchema,
    AdminInitReplySchema,
    SAFE_TO_REPEAT,
  ),

  listWorkspaces: defineRequest(
    'registry.workspace.list',
    ListWorkspacesRequestSchema,
    ListWorkspacesReplySchema,
    SAFE_TO_REPEAT,
  ),
  createWorkspace: defineRequest('registry.workspace.create', CreateWorkspaceRequestSchema, WorkspaceSchema),

  whoami: defineRequest('registry.user.whoami', WhoamiRequestSchema, CallerIdentitySchema, SAFE_TO_REPEAT),
  listUsers: defineRequest(
    'registry.user.list',
    ListUsersRequestSchema,
    ListUsersReplySchema,
    SAFE_TO_REPEAT,
  ),
  getUser: defineRequest('registry.user.get', GetUserRequestSchema, UserSchema, SAFE_TO_REPEAT),
  addUser: defineRequest('registry.user.add', AddUserRequestSchema, UserSchema),
  updateUser: defineRequest('registry.user.update', UpdateUserRequestSchema, UserSchema),
  removeUser: defineRequest('registry.user.remove', RemoveUserRequestSchema, DoneReplySchema),

  listGroups: defineRequest(
    'registry.group.list',
    ListGroupsRequestSchema,
    ListGroupsReplySchema,
    SAFE_TO_REPEAT,
  ),
  getGroup: defineRequest('registry.group.get', GetGroupRequestSchema, GroupSchema, SAFE_TO_REPEAT),
  createGroup: defineRequest('registry.group.create', CreateGroupRequestSchema, GroupSchema),
  deleteGroup: defineRequest('registry.group.delete', DeleteGroupRequestSchema, DoneReplySchema),
  addGroupMember: defineRequest('registry.group.add_member', GroupMemberRequestSchema, GroupSchema),
  removeGroupMember: defineRequest('registry.group.remove_member', GroupMemberRequestSchema, GroupSchema),

  listFolders: defineRequest(
    'registry.folder.list',
    ListFoldersRequestSchema,
    ListFoldersReplySchema,
    SAFE_TO_REPEAT,
  ),
  getFolder: defineRequest('registry.folder.get', GetFolderRequestSchema, FolderSchema, SAFE_TO_REPEAT),
  createFolder: defineRequest('registry.folder.create', CreateFolderRequestSchema, FolderSchema),
  updateFolder: defineRequest('registry.folder.update', UpdateFolderRequestSchema, FolderSchema),
  deleteFolder: defineRequest('registry.folder.delete', DeleteFolderRequestSchema, DoneReplySchema),

  createApiToken: defineRequest('registry.token.create', CreateApiTokenRequestSchema, CreatedApiTokenSchema),
  listApiTokens: defineRequest(
    'registry.token.list',
    ListApiTokensRequestSchema,
    ListApiTokensReplySchema,
    SAFE_TO_REPEAT,
  ),
  revokeApiToken: defineRequest('registry.token.revoke', RevokeApiTokenRequestSchema, DoneReplySchema),
} as const;

export type RegistryIdentityContract = typeof registryIdentityContract;

/** `identity.authenticate({ token, workspace })`, ... over any request transport (a `MeshClient`). */
export function createRegistryIdentityClient(transport: RequestTransport) {
  return createContractClient(registryIdentityContract, transport);
}
export type RegistryIdentityClient = ReturnType<typeof createRegistryIdentityClient>;
