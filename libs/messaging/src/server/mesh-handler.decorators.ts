import {
  EVENT_CONSUMER_DEFAULTS,
  WORK_CONSUMER_DEFAULTS,
  type EventContract,
  type RequestContract,
  type WorkContract,
} from '@flowmesh/contracts';
import { applyDecorators, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern } from '@nestjs/microservices';
import {
  MESH_BINDING,
  type EventBinding,
  type RequestBinding,
  type WorkBinding,
} from './mesh-handler.binding.js';
import { MeshErrorPassthroughFilter } from './mesh-error-passthrough.filter.js';

/**
 * Handler decorators. Each is Nest's own `@MessagePattern`/`@EventPattern` with a pattern the
 * transport understands and the contract in the pattern's extras, so the handler stays a plain
 * method (`@Payload()`, `@Ctx()`, guards and interceptors work as usual) and receives the payload
 * already validated by the contract.
 */

// An instance, not the class: it has no dependencies, and Nest then needs no provider for it.
const passthrough = new MeshErrorPassthroughFilter();

/** Answers `contract.subject` (request/reply, one queue group per service). */
export function HandleRequest(contract: RequestContract): MethodDecorator {
  const binding: RequestBinding = { kind: 'request', contract };
  return applyDecorators(
    MessagePattern(requestPattern(contract), { [MESH_BINDING]: binding }),
    UseFilters(passthrough),
  );
}

export interface HandleEventOptions {
  durable: string;
  ackWaitMs?: number;
  maxDeliver?: number;
  backoffMs?: readonly number[];
  maxAckPending?: number;
  concurrency?: number;
  deliverPolicy?: 'all' | 'new';
}

/** Consumes an event through this service's durable consumer on the events stream. */
export function HandleEvent(contract: EventContract, options: HandleEventOptions): MethodDecorator {
  const binding: EventBinding = {
    kind: 'event',
    contract,
    durable: options.durable,
    ackWaitMs: options.ackWaitMs ?? EVENT_CONSUMER_DEFAULTS.ackWaitMs,
    maxDeliver: options.maxDeliver ?? EVENT_CONSUMER_DEFAULTS.maxDeliver,
    backoffMs: options.backoffMs ?? EVENT_CONSUMER_DEFAULTS.backoffMs,
    maxAckPending: options.maxAckPending ?? EVENT_CONSUMER_DEFAULTS.maxAckPending,
    concurrency: options.concurrency ?? 16,
    deliverPolicy: options.deliverPolicy ?? 'all',
  };
  return applyDecorators(
    EventPattern<string>(`event:${options.durable}:${contract.subject}`, { [MESH_BINDING]: binding }),
    UseFilters(passthrough),
  );
}

export interface HandleWorkOptions {
  /** Worker tags this handler serves (`work.<tag>.<kind>`). */
  tags: readonly string[];
  durable: string;
  ackWaitMs?: number;
  maxDeliver?: number;
  backoffMs?: readonly number[];
  maxAckPending?: number;
  /** Jobs run at once per tag in this instance (default 1: a worker takes one job at a time). */
  concurrency?: number;
}

/** Takes jobs of `contract.workKind` for the given tags from the work-queue stream. */
export function HandleWork(contract: WorkContract, options: HandleWorkOptions): MethodDecorator {
  if (options.tags.length === 0) throw new Error(`@HandleWork(${contract.workKind}) needs at least one tag`);
  const binding: WorkBinding = {
    kind: 'work',
    contract,
    tags: options.tags,
    durable: options.durable,
    ackWaitMs: options.ackWaitMs ?? WORK_CONSUMER_DEFAULTS.ackWaitMs,
    maxDeliver: options.maxDeliver ?? WORK_CONSUMER_DEFAULTS.maxDeliver,
    backoffMs: options.backoffMs ?? WORK_CONSUMER_DEFAULTS.backoffMs,
    maxAckPending: options.maxAckPending ?? WORK_CONSUMER_DEFAULTS.maxAckPending,
    concurrency: options.concurrency ?? 1,
  };
  return applyDecorators(
    EventPattern<string>(`work:${options.durable}:${contract.workKind}`, { [MESH_BINDING]: binding }),
    UseFilters(passthrough),
  );
}

export function requestPattern(contract: RequestContract): string {
  return `request:${contract.subject}`;
}
