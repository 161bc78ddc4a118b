import { FolderNameSchema, PrincipalSchema, type Folder } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies and answers of `/api/w/:workspace/folders/...`, shaped as Windmill's. */
const principals = z.array(PrincipalSchema).max(256);

export const CreateFolderBodySchema = z
  .object({
    name: FolderNameSchema,
    summary: z.string().max(1000).optional(),
    owners: principals.optional(),
    writers: principals.optional(),
    readers: principals.optional(),
  })
  .strict();

export const UpdateFolderBodySchema = z
  .object({
    summary: z.string().max(1000).nullable().optional(),
    owners: principals.optional(),
    writers: principals.optional(),
    readers: principals.optional(),
  })
  .strict();

export function folderView(folder: Folder) {
  return {
    name: folder.name,
    summary: folder.summary,
    owners: folder.owners,
    writers: folder.writers,
    readers: folder.readers,
    created_at: folder.createdAt,
  };
}
