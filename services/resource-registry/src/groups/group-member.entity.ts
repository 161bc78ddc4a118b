import { Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'group_member' })
export class GroupMemberEntity {
  @PrimaryColumn({ type: 'text' })
  workspaceId!: string;

  @PrimaryColumn({ type: 'text' })
  groupName!: string;

  @PrimaryColumn({ type: 'text' })
  username!: string;
}
