import { z } from 'zod';
import {
  FolderNameSchema,
  GroupNameSchema,
  PrincipalSchema,
  UsernameSchema,
  WorkspaceIdSchema,
} from './access-path.js';
import { ScopeListSchema } from './access-scope.js';
import { ActorSchema } from './identity.schema.js';

/**
 * Payloads of workspaces, users, groups, folders and API tokens over NATS. Every request names
 * its actor and (except the workspace list) its workspace.
 */
const inWorkspace = { actor: ActorSchema, workspace: WorkspaceIdSchema };

export const WorkspaceSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.string() });
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const ListWorkspacesRequestSchema = z.object({ actor: ActorSchema }).strict();
export const ListWorkspacesReplySchema = z.object({ workspaces: z.array(WorkspaceSchema) });
export const CreateWorkspaceRequestSchema = z
  .object({
    actor: ActorSchema,
    id: WorkspaceIdSchema,
    name: z.string().min(1).max(200),
    username: UsernameSchema.optional(),
  })
  .strict();

export const UserSchema = z.object({
  username: z.string(),
  email: z.string(),
  isAdmin: z.boolean(),
  groups: z.array(z.string()),
  createdAt: z.string(),
});
export type User = z.infer<typeof UserSchema>;

export const WhoamiRequestSchema = z.object(inWorkspace).strict();
export const ListUsersRequestSchema = z.object(inWorkspace).strict();
export const ListUsersReplySchema = z.object({ users: z.array(UserSchema) });
export const GetUserRequestSchema = z.object({ ...inWorkspace, username: UsernameSchema }).strict();
export const AddUserRequestSchema = z
  .object({
    ...inWorkspace,
    email: z.email().max(254),
    username: UsernameSchema,
    isAdmin: z.boolean().default(false),
  })
  .strict();
export const UpdateUserRequestSchema = z
  .object({ ...inWorkspace, username: UsernameSchema, isAdmin: z.boolean() })
  .strict();
export const RemoveUserRequestSchema = GetUserRequestSchema;

export const GroupSchema = z.object({
  name: z.string(),
  summary: z.string().nullable(),
  members: z.array(z.string()),
  createdAt: z.string(),
});
export type Group = z.infer<typeof GroupSchema>;

export const ListGroupsRequestSchema = z.object(inWorkspace).strict();
export const ListGroupsReplySchema = z.object({ groups: z.array(GroupSchema) });
export const GetGroupRequestSchema = z.object({ ...inWorkspace, name: GroupNameSchema }).strict();
export const CreateGroupRequestSchema = z
  .object({ ...inWorkspace, name: GroupNameSchema, summary: z.string().max(1000).optional() })
  .strict();
export const DeleteGroupRequestSchema = GetGroupRequestSchema;
export const GroupMemberRequestSchema = z
  .object({ ...inWorkspace, name: GroupNameSchema, username: UsernameSchema })
  .strict();

const principals = z.array(PrincipalSchema).max(256);

export const FolderSchema = z.object({
  name: z.string(),
  summary: z.string().nullable(),
  /** Principals (`u/<user>`, `g/<group>`) per role: owners manage the folder and write, writers write, readers read. */
  owners: z.array(z.string()),
  writers: z.array(z.string()),
  readers: z.array(z.string()),
  createdAt: z.string(),
});
export type Folder = z.infer<typeof FolderSchema>;

export const ListFoldersRequestSchema = z.object(inWorkspace).strict();
export const ListFoldersReplySchema = z.object({ folders: z.array(FolderSchema) });
export const GetFolderRequestSchema = z.object({ ...inWorkspace, name: FolderNameSchema }).strict();
export const CreateFolderRequestSchema = z
  .object({
    ...inWorkspace,
    name: FolderNameSchema,
    summary: z.string().max(1000).optional(),
    owners: principals.optional(),
    writers: principals.optional(),
    readers: principals.optional(),
  })
  .strict();
export const UpdateFolderRequestSchema = z
  .object({
    ...inWorkspace,
    name: FolderNameSchema,
    summary: z.string().max(1000).nullable().optional(),
    owners: principals.optional(),
    writers: principals.optional(),
    readers: principals.optional(),
  })
  .strict();
export const DeleteFolderRequestSchema = GetFolderRequestSchema;

export const ApiTokenSchema = z.object({
  /** First characters of the token: how a user tells tokens apart and revokes one. */
  prefix: z.string(),
  label: z.string().nullable(),
  email: z.string(),
  /** The workspace the token works in; null: every workspace of its account. */
  workspace: z.string().nullable(),
  scopes: z.array(z.string()).optional(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ApiToken = z.infer<typeof ApiTokenSchema>;

export const CreateApiTokenRequestSchema = z
  .object({
    ...inWorkspace,
    label: z.string().max(200).optional(),
    scopes: ScopeListSchema.optional(),
    /** ISO time; absent: never expires. */
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    /** An admin creating a token for another member of the workspace. */
    username: UsernameSchema.optional(),
  })
  .strict();
export const CreatedApiTokenSchema = ApiTokenSchema.extend({ token: z.string() });
export const ListApiTokensRequestSchema = z.object(inWorkspace).strict();
export const ListApiTokensReplySchema = z.object({ tokens: z.array(ApiTokenSchema) });
export const RevokeApiTokenRequestSchema = z
  .object({ ...inWorkspace, prefix: z.string().min(1).max(64) })
  .strict();

export const DoneReplySchema = z.object({ done: z.literal(true) });
