import { randomUUID } from 'node:crypto';
import { validationError, workSubject, type EventContract, type WorkContract } from '@flowmesh/contracts';
import type { EntityManager } from 'typeorm';
import type { z } from 'zod';
import { captureTraceHeaders } from '../tracing/message-tracing.js';
import { outboxTablePath } from './outbox-table.util.js';

export interface OutboxWriteOptions {
  /**
   * Stable id of this message, derived from the state change (`job:<id>:completed`): it becomes
   * the `Nats-Msg-Id`, and a second write with the same id is ignored.
   */
  msgId: string;
}

export interface OutboxWriteResult {
  /** False when a message with this `msgId` was already in the outbox. */
  written: boolean;
}

/**
 * Writes an event into the outbox through `manager`, which must be the transaction's own manager
 * so the message commits or rolls back with the state change. Validated like a direct publish;
 * the current trace context is stored with it so the trace continues when the relay publishes.
 */
export async function writeToOutbox<Payload extends z.ZodType>(
  manager: EntityManager,
  contract: EventContract<Payload>,
  payload: z.input<Payload>,
  options: OutboxWriteOptions,
): Promise<OutboxWriteResult>;
/** Writes a unit of work for worker tag `options.tag` into the outbox. */
export async function writeToOutbox<Payload extends z.ZodType>(
  manager: EntityManager,
  contract: WorkContract<Payload>,
  payload: z.input<Payload>,
  options: OutboxWriteOptions & { tag: string },
): Promise<OutboxWriteResult>;
export async function writeToOutbox(
  manager: EntityManager,
  contract: EventContract | WorkContract,
  payload: unknown,
  options: OutboxWriteOptions & { tag?: string },
): Promise<OutboxWriteResult> {
  const subject =
    contract.kind === 'event' ? contract.subject : workSubject(requireTag(options.tag), contract.workKind);
  const checked = contract.payload.safeParse(payload);
  if (!checked.success) throw validationError(`outbox message on ${subject}`, checked.error);
  const rows: unknown[] = await manager.query(
    `INSERT INTO ${outboxTablePath(manager.connection)} ("id", "subject", "payload", "headers", "msg_id")
     VALUES ($1, $2, $3::jsonb, $4::jsonb, $5)
     ON CONFLICT ("msg_id") DO NOTHING
     RETURNING "id"`,
    [randomUUID(), subject, JSON.stringify(payload), JSON.stringify(captureTraceHeaders()), options.msgId],
  );
  return { written: rows.length > 0 };
}

function requireTag(tag: string | undefined): string {
  if (!tag) throw new Error('writeToOutbox: a work contract needs options.tag');
  return tag;
}
