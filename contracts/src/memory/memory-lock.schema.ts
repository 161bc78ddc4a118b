import { z } from 'zod';
import { WorkspaceIdSchema } from '../registry/access-path.js';
import { ActorSchema } from '../registry/identity.schema.js';
import { MemoryFlowPathSchema, MemoryIdSchema, MemoryKeySchema, StepIdSchema } from './memory.schema.js';

/**
 * What a run does when another run holds (or waits for) the memory its agent step uses, as
 * LangGraph's platform calls it (`multitask_strategy`, "double texting"):
 * - `enqueue` (the default): the step waits its turn, then loads the memory with the other's
 *   exchange in it;
 * - `reject`: the step fails at once, naming the memory and the strategy;
 * - `interrupt`: the other runs ahead of the step (the one holding the memory, and any waiting
 *   before it) are cancelled, as a user cancel would; the step goes once they let go.
 * Steps of one run never reject or interrupt each other: they queue.
 */
export const MULTITASK_STRATEGIES = ['enqueue', 'reject', 'interrupt'] as const;
export const MultitaskStrategySchema = z.enum(MULTITASK_STRATEGIES);
export type MultitaskStrategy = z.infer<typeof MultitaskStrategySchema>;

/** The most a lease may run (a parked step's lasts until its approval timeout: at most a day). */
export const MAX_MEMORY_LEASE_MS = 2 * 86_400_000;

/** A run holding or waiting for a memory: its step's job and the run (root job) it belongs to. */
export const MemoryLockHolderSchema = z.object({ jobId: z.uuid(), rootJob: z.uuid() });
export type MemoryLockHolder = z.infer<typeof MemoryLockHolderSchema>;

/**
 * Takes a ticket for the memory of (memory key, step), or looks at the one the step has: held
 * (the step may load and save), waiting (ask again), or rejected. Asking again with the same job
 * renews the ticket and keeps its place. A ticket not renewed within `leaseMs` is dropped, so a
 * step whose process died leaves the memory to the next.
 */
export const AcquireMemoryLockRequestSchema = z
  .object({
    actor: ActorSchema,
    workspace: WorkspaceIdSchema,
    flowPath: MemoryFlowPathSchema,
    memoryKey: MemoryKeySchema,
    stepId: StepIdSchema,
    /** The agent step's job: the ticket's owner. */
    jobId: z.uuid(),
    /** The run it belongs to: tickets of one run only queue behind each other. */
    rootJob: z.uuid(),
    strategy: MultitaskStrategySchema.default('enqueue'),
    leaseMs: z.number().int().positive().max(MAX_MEMORY_LEASE_MS),
  })
  .strict();
export type AcquireMemoryLockRequest = z.input<typeof AcquireMemoryLockRequestSchema>;

export const AcquireMemoryLockReplySchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('held'), memoryId: MemoryIdSchema }),
  z.object({
    status: z.literal('waiting'),
    memoryId: MemoryIdSchema,
    /** Tickets ahead of this one (1: next). */
    position: z.number().int().positive(),
    /** The step holding the memory; null between one holder's release and the next's ask. */
    holder: MemoryLockHolderSchema.nullable(),
    /**
     * `interrupt` only: the other runs' tickets ahead of this one (the holder's among them), whose
     * runs the caller cancels; empty for the other strategies.
     */
    interrupted: z.array(MemoryLockHolderSchema),
  }),
  /** `reject`: another run holds or waits for the memory; no ticket was taken. */
  z.object({ status: z.literal('rejected'), memoryId: MemoryIdSchema, holder: MemoryLockHolderSchema }),
]);
export type AcquireMemoryLockReply = z.infer<typeof AcquireMemoryLockReplySchema>;

/** Extends the tickets of these steps (held or waiting) by `leaseMs` from now. */
export const RenewMemoryLocksRequestSchema = z
  .object({
    jobIds: z.array(z.uuid()).max(10_000),
    leaseMs: z.number().int().positive().max(MAX_MEMORY_LEASE_MS),
  })
  .strict();
export const RenewMemoryLocksReplySchema = z.object({
  /** The steps that still had a ticket (the others' expired and are gone). */
  renewed: z.array(z.uuid()),
});

/** Drops the tickets of these steps (their memory is saved, or they ended): the next in line goes. */
export const ReleaseMemoryLocksRequestSchema = z.object({ jobIds: z.array(z.uuid()).max(10_000) }).strict();
export const ReleaseMemoryLocksReplySchema = z.object({ released: z.number().int().nonnegative() });
