import type { Group } from '@flowmesh/contracts';
import { GroupNameSchema, UsernameSchema } from '@flowmesh/contracts';
import { z } from 'zod';

/** HTTP bodies and answers of `/api/w/:workspace/groups/...`, shaped as Windmill's. */
export const CreateGroupBodySchema = z
  .object({ name: GroupNameSchema, summary: z.string().max(1000).optional() })
  .strict();
export const GroupMemberBodySchema = z.object({ username: UsernameSchema }).strict();

export function groupView(group: Group) {
  return { name: group.name, summary: group.summary, members: group.members, created_at: group.createdAt };
}
