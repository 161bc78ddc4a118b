import {
  MeshError,
  type Conversation,
  type ConversationMessage,
  type TranscriptRole,
} from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { distinctFlowPaths, pageOfFlowRows } from '../storage/flow-rows.query.js';

interface RawConversation {
  id: string;
  flow_path: string;
  title: string | null;
  message_count: number;
  created_at: Date;
  updated_at: Date;
}

interface RawMessage {
  id: string;
  conversation_id: string;
  seq: number;
  role: TranscriptRole;
  content: string;
  job_id: string;
  step_id: string | null;
  created_at: Date;
}

export interface NewTranscriptEntry {
  readonly workspace: string;
  readonly conversationId: string;
  readonly flowPath: string;
  readonly jobId: string;
  readonly stepId?: string;
  readonly role: TranscriptRole;
  readonly content: string;
}

const CONVERSATION_COLUMNS = `id, flow_path, title, message_count, created_at, updated_at`;

// Opening the conversation and numbering the entry happen in one statement: the conversation
// row's lock orders concurrent appends, and its count is the entry's position.
const APPEND = `
  WITH conversation AS (
    INSERT INTO flow_conversation AS c (workspace_id, id, flow_path, message_count)
    VALUES ($1, $2, $3, 1)
    ON CONFLICT (workspace_id, id) DO UPDATE SET message_count = c.message_count + 1, updated_at = now()
      WHERE c.flow_path = EXCLUDED.flow_path
    RETURNING message_count
  )
  INSERT INTO flow_conversation_message (workspace_id, conversation_id, seq, role, content, job_id, step_id)
  SELECT $1, $2, message_count, $4, $5, $6, $7 FROM conversation
  RETURNING id, seq`;

/** `flow_conversation` and `flow_conversation_message` rows. */
@Injectable()
export class ConversationRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Opens the conversation, or finds it; undefined when the id belongs to another flow. */
  async start(
    workspace: string,
    id: string,
    flowPath: string,
    title: string | undefined,
  ): Promise<Conversation | undefined> {
    await this.dataSource.query(
      `INSERT INTO flow_conversation (workspace_id, id, flow_path, title) VALUES ($1, $2, $3, $4)
        ON CONFLICT (workspace_id, id) DO NOTHING`,
      [workspace, id, flowPath, title ?? null],
    );
    const found = await this.find(workspace, id);
    return found?.flowPath === flowPath ? found : undefined;
  }

  async find(workspace: string, id: string): Promise<Conversation | undefined> {
    const rows: RawConversation[] = await this.dataSource.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM flow_conversation WHERE workspace_id = $1 AND id = $2`,
      [workspace, id],
    );
    return rows[0] && toConversation(rows[0]);
  }

  async append(entry: NewTranscriptEntry): Promise<{ messageId: string; seq: number }> {
    const rows: Array<{ id: string; seq: number }> = await this.dataSource.query(APPEND, [
      entry.workspace,
      entry.conversationId,
      entry.flowPath,
      entry.role,
      entry.content,
      entry.jobId,
      entry.stepId ?? null,
    ]);
    const row = rows[0];
    if (!row) {
      throw new MeshError('CONFLICT', `conversation ${entry.conversationId} belongs to another flow`, {
        conversationId: entry.conversationId,
      });
    }
    return { messageId: row.id, seq: row.seq };
  }

  distinctFlowPaths(workspace: string, flowPath?: string): Promise<string[]> {
    return distinctFlowPaths(this.dataSource, 'flow_conversation', workspace, flowPath);
  }

  async list(
    workspace: string,
    flowPaths: readonly string[],
    page: number,
    perPage: number,
  ): Promise<Conversation[]> {
    const rows = await pageOfFlowRows<RawConversation>(
      this.dataSource,
      `SELECT ${CONVERSATION_COLUMNS} FROM flow_conversation WHERE workspace_id = $1 AND flow_path = ANY($2::text[])
        ORDER BY updated_at DESC, id`,
      workspace,
      flowPaths,
      page,
      perPage,
    );
    return rows.map(toConversation);
  }

  async messages(
    workspace: string,
    conversationId: string,
    order: 'asc' | 'desc',
    page: number,
    perPage: number,
  ): Promise<ConversationMessage[]> {
    const rows: RawMessage[] = await this.dataSource.query(
      `SELECT id, conversation_id, seq, role, content, job_id, step_id, created_at FROM flow_conversation_message
        WHERE workspace_id = $1 AND conversation_id = $2
        ORDER BY seq ${order === 'asc' ? 'ASC' : 'DESC'} LIMIT $3 OFFSET $4`,
      [workspace, conversationId, perPage, (page - 1) * perPage],
    );
    return rows.map(toMessage);
  }

  /** Deletes the conversation; its transcript goes with it (foreign key cascade). */
  async delete(manager: EntityManager, workspace: string, id: string): Promise<number> {
    const result: [Array<{ message_count: number }>, number] = await manager.query(
      `DELETE FROM flow_conversation WHERE workspace_id = $1 AND id = $2 RETURNING message_count`,
      [workspace, id],
    );
    return result[0][0]?.message_count ?? 0;
  }
}

function toConversation(raw: RawConversation): Conversation {
  return {
    id: raw.id,
    flowPath: raw.flow_path,
    title: raw.title,
    messageCount: raw.message_count,
    createdAt: raw.created_at.toISOString(),
    updatedAt: raw.updated_at.toISOString(),
  };
}

function toMessage(raw: RawMessage): ConversationMessage {
  return {
    id: raw.id,
    conversationId: raw.conversation_id,
    seq: raw.seq,
    role: raw.role,
    content: raw.content,
    jobId: raw.job_id,
    stepId: raw.step_id,
    createdAt: raw.created_at.toISOString(),
  };
}
