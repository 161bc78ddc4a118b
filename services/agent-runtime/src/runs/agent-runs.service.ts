import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { JobTokenSealer } from '@flowmesh/keyring';
import {
  AgentAnswerPayloadSchema,
  createOrchestratorAgentStepClient,
  MeshError,
  type AgentStepAnswerReply,
  type AgentStepAnswerRequest,
  type AgentStepStartRequest,
  type ChatCompletedEvent,
} from '@flowmesh/contracts';
import { MeshClient } from '@flowmesh/messaging';
import type { Logger } from '@flowmesh/telemetry';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AGENTS_SETTINGS, type AgentsSettings } from '../agent-runtime.config.js';
import { AgentRunRepository, type AgentRunRow, type AgentStepOutcome } from './agent-run.repository.js';
import type { ResumedAgent } from '../loop/agent-loop.js';
import type { AgentCheckpoint, AgentProgress, CallProgress } from '../pause/agent-checkpoint.js';
import { MemoryTurns } from '../memory/memory-turns.js';
import { AGENT_LOGGER, AgentStepExecutor } from './agent-step.executor.js';
import { SerialWrites } from './serial-writes.js';

/**
 * The agent steps this replica runs. A step is written to `agent_run` before the orchestrator
 * hears "accepted", runs here while this replica renews its lease, and is removed once the
 * orchestrator has its outcome. A replica that dies leaves its steps to the others when their
 * leases run out (a step is run again from its start, at most FLOWMESH_AGENT_MAX_ATTEMPTS times);
 * an outcome the orchestrator did not confirm is sent again. Steps beyond FLOWMESH_AGENT_MAX_RUNS
 * wait in the table for a free slot on any replica.
 */
@Injectable()
export class AgentRuns implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly owner = ownerId();
  private readonly running = new Map<string, AbortController>();
  /**
   * Running steps that wait on their tools' jobs (or their turn at a memory another run uses):
   * they hold no slot, so a step whose tool is a nested agent (a step of its own) never waits for
   * the slot its parent holds, and runs queued on one memory never starve the others.
   */
  private readonly onTools = new Set<string>();
  private readonly sealer: JobTokenSealer;
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Asked for while a poll ran: it runs again once that one ends. */
  private pollAgain = false;
  /**
   * Steps were accepted here while every slot was busy: a slot that frees claims the next at once
   * rather than at the next poll (a third of the lease later: 32 slots then served 3 steps a second).
   */
  private backlog = false;
  private stopping = false;

  constructor(
    private readonly repository: AgentRunRepository,
    private readonly executor: AgentStepExecutor,
    private readonly mesh: MeshClient,
    private readonly turns: MemoryTurns,
    @Inject(AGENTS_SETTINGS) private readonly settings: AgentsSettings,
    @Inject(AGENT_LOGGER) private readonly logger: Logger,
  ) {
    this.sealer = new JobTokenSealer(settings.jobTokenKeys);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.settings.jobTokenKeys.insecureDevelopmentKey) {
      this.logger.warn(
        'FLOWMESH_JOB_TOKEN_STORE_KEYS is not set: accepted steps keep their job tokens sealed with the public development key (insecure-dev), which protects nothing; set it, the same as the orchestrator (required with NODE_ENV=production)',
      );
    }
    LIVE_OWNERS.add(this.owner);
    // A quarter of the lease (a second at most): three renewals can fail before another replica
    // may take the step, and a dead replica's steps are taken over soon after their lease ran out.
    const every = Math.max(100, Math.min(1_000, Math.floor(this.settings.leaseMs / 4)));
    this.timer = setInterval(() => void this.poll(), every);
    this.timer.unref();
    await this.takeOverPredecessors();
    void this.poll();
    this.sweepTimer = setInterval(() => void this.sweep(), this.settings.sweepMs);
    this.sweepTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    LIVE_OWNERS.delete(this.owner);
    clearInterval(this.timer);
    clearInterval(this.sweepTimer);
    const ids = [...this.running.keys()];
    for (const controller of this.running.values()) controller.abort();
    // Handed back at once: another replica starts them again instead of waiting for the lease.
    await this.repository.release(this.owner, ids).catch(() => undefined);
  }

  /**
   * A replica restarted in place (its container, its process on this host) takes up at once the
   * steps its dead predecessor held, instead of waiting for their leases: their leases are ended,
   * and the first poll claims them.
   */
  private async takeOverPredecessors(): Promise<void> {
    try {
      const owners = await this.repository.ownersOn(hostname());
      const dead = owners.filter((owner) => owner !== this.owner && !ownerAlive(owner));
      if (dead.length === 0) return;
      const count = await this.repository.expire(dead);
      if (count > 0)
        this.logger.info(
          { steps: count },
          'agent steps of a stopped replica on this host are taken up at once',
        );
    } catch (error) {
      this.logger.warn({ err: error }, 'the steps of a stopped replica on this host wait for their leases');
    }
  }

  /**
   * Steps a cancel ended (the orchestrator already marked their jobs): a run here stops at once
   * (its model call, image and tools are abandoned), and their rows go wherever they run or wait,
   * so no replica takes them up again.
   */
  async cancel(jobIds: readonly string[]): Promise<void> {
    const stopped = new Set<string>();
    for (const jobId of jobIds) {
      const controller = this.running.get(jobId);
      if (!controller) continue;
      this.logger.info({ job_id: jobId }, 'agent step cancelled; its run stops');
      this.running.delete(jobId); // before its lease is renewed: it was not lost, it ended
      controller.abort();
      stopped.add(jobId);
    }
    for (const jobId of await this.repository.removeAll(jobIds))
      if (!stopped.has(jobId))
        this.logger.info({ job_id: jobId }, 'agent step cancelled while it waited; it is dropped');
    // Running, parked or waiting for their memory anywhere: the next run on it goes on.
    await this.turns.release(jobIds);
  }

  /**
   * Drops the checkpoints of parked steps whose job left the queue (000's monitor sweep): a cancel
   * this mesh's replicas did not hear (none was running), a job removed. The orchestrator says
   * which; a step answered or claimed meanwhile is left alone. Every replica sweeps; it is a read
   * and a guarded delete, so two at once do no harm.
   */
  private async sweep(): Promise<void> {
    if (this.stopping) return;
    try {
      const parked = await this.repository.parked(500);
      if (parked.length === 0) return;
      const { ended } = await createOrchestratorAgentStepClient(this.mesh).ended({ steps: parked });
      const dropped = await this.repository.removeParked(ended);
      for (const jobId of dropped)
        this.logger.info({ job_id: jobId }, 'the parked step left the queue; its checkpoint is dropped');
      await this.turns.release(dropped);
    } catch (error) {
      this.logger.warn({ err: error }, 'parked agent steps could not be swept; the next sweep tries again');
    }
  }

  /** Steps holding a slot: running, and not waiting on their tools. */
  private get busy(): number {
    return this.running.size - this.onTools.size;
  }

  /** Records a step and starts it when a slot is free; true once it is durably accepted. */
  async accept(request: AgentStepStartRequest): Promise<boolean> {
    const { job_token: token, ...stored } = request;
    const sealed = this.sealer.seal(token, request.job_id);
    const free = !this.stopping && this.busy < this.settings.maxRuns;
    const inserted = await this.repository.accept(
      stored,
      sealed,
      free ? this.owner : null,
      free ? this.settings.leaseMs : 0,
    );
    if (inserted && free) this.start(request);
    else if (inserted) {
      this.backlog = true;
      this.logger.info({ job_id: request.job_id }, 'agent step accepted; it waits for a free slot');
    }
    return true;
  }

  /**
   * An answer to a parked step: the first one naming its request (or naming none) is stored and
   * the step is claimed to resume; one naming an earlier request is ignored (`waiting`).
   */
  async answer(request: AgentStepAnswerRequest): Promise<AgentStepAnswerReply['outcome']> {
    const waiting = await this.repository.answerable(request.job_id, request.workspace);
    if (!waiting)
      throw new MeshError('NOT_FOUND', `job ${request.job_id} is not waiting for an answer to its agent`, {
        id: request.job_id,
      });
    const parsed = AgentAnswerPayloadSchema.safeParse(request.payload ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = `payload${issue?.path.length ? `.${issue.path.join('.')}` : ''}`;
      throw new MeshError('VALIDATION_FAILED', `${field}: ${issue?.message ?? 'is not valid'}`, {
        param: field,
      });
    }
    const payload = parsed.data;
    if (payload.call_id !== undefined && payload.call_id !== waiting.callId) return 'waiting';
    // The resume approves, unless its payload says otherwise (Windmill's `{call_id, approved}`).
    const approved = request.approve && payload.approved !== false;
    if (waiting.kind === 'question' && approved && payload.answer === undefined)
      throw new MeshError('VALIDATION_FAILED', 'payload.answer: is required to answer a question', {
        param: 'payload.answer',
      });
    const stored = await this.repository.answer(request.job_id, waiting.callId, {
      approved,
      approver: request.approver,
      ...(payload.comment !== undefined ? { comment: payload.comment } : {}),
      ...(payload.answer !== undefined ? { answer: payload.answer } : {}),
    });
    if (!stored)
      throw new MeshError('NOT_FOUND', `job ${request.job_id} is not waiting for an answer to its agent`, {
        id: request.job_id,
      });
    // Claimed now when a slot is free, else as soon as one of this replica's frees (or by the first
    // replica that polls): 10 000 answers at once were otherwise taken 32 per poll, 3 a second.
    this.backlog = true;
    void this.poll();
    return 'resumed';
  }

  private start(
    request: AgentStepStartRequest,
    resumed?: ResumedAgent,
    known: AgentRunRow['answers'] = {},
  ): void {
    const controller = new AbortController();
    this.running.set(request.job_id, controller);
    this.logger.info(
      { job_id: request.job_id, step_id: request.step_id },
      resumed ? 'agent step resumed' : 'agent step started',
    );
    const waitingOnTools = (waiting: boolean) => {
      if (waiting) this.onTools.add(request.job_id);
      else this.onTools.delete(request.job_id);
    };
    // Kept on the row while this replica owns it, so one that takes it over goes on from there.
    // One write at a time, in order: a call's result the loop did not wait for lands before the
    // next turn replaces the calls.
    const writes = new SerialWrites();
    const progress = {
      turn: async (state: AgentProgress) => {
        await writes.enqueue(() => this.repository.saveProgress(this.owner, request.job_id, state));
      },
      call: (callId: string, call: CallProgress) =>
        writes
          .enqueue(() => this.repository.saveCall(this.owner, request.job_id, callId, call))
          .then(
            () => undefined,
            (error: unknown) =>
              this.logger.warn(
                { err: error, job_id: request.job_id, call_id: callId },
                'the progress of a tool call could not be kept; a replica taking over runs it again',
              ),
          ),
    };
    const answers = {
      known,
      keep: (key: string, answer: ChatCompletedEvent) =>
        this.repository.saveAnswer(request.job_id, key, answer),
    };
    void this.executor
      .execute(request, controller.signal, resumed, {
        waitingOnTools,
        waitingOnMemory: waitingOnTools,
        progress,
        answers,
        storeOutcome: (outcome) => this.repository.saveOutcome(request.job_id, outcome),
      })
      .then(async (result) => {
        if (controller.signal.aborted) return; // stopping: the step was handed back
        if ('parked' in result) return this.park(request, result.parked);
        const { outcome } = result;
        if (!result.stored) await this.repository.saveOutcome(request.job_id, outcome);
        // Ran to its end: no lease to renew any more; an outcome not confirmed is resent by a claim.
        this.running.delete(request.job_id);
        await this.report(request.job_id, request.workspace, outcome);
      })
      .catch((error: unknown) =>
        this.logger.error(
          { err: error, job_id: request.job_id },
          'agent step outcome not recorded; it is run again',
        ),
      )
      .finally(() => {
        this.running.delete(request.job_id);
        this.onTools.delete(request.job_id);
        if (this.backlog) void this.poll();
      });
  }

  /**
   * Stores the parked agent (its lease then runs until the request times out) and tells the
   * orchestrator, which shows the step suspended and forwards answers; a step that ended
   * meanwhile (cancelled) is dropped.
   */
  private async park(request: AgentStepStartRequest, checkpoint: AgentCheckpoint): Promise<void> {
    const { kind, callId, until } = checkpoint.waiting;
    this.running.delete(request.job_id);
    if (!(await this.repository.park(this.owner, request.job_id, checkpoint, { kind, callId }))) {
      this.logger.warn({ job_id: request.job_id }, 'the lease on the agent step was lost; it is not parked');
      return;
    }
    await this.turns.keepWhileParked(request.job_id, until);
    try {
      const reply = await createOrchestratorAgentStepClient(this.mesh).wait({
        job_id: request.job_id,
        workspace: request.workspace,
        waiting: { kind, call_id: callId, until },
      });
      if (!reply.recorded) {
        this.logger.info({ job_id: request.job_id }, 'the step ended while its agent parked; it is dropped');
        await this.repository.remove(request.job_id);
      }
    } catch (error) {
      this.logger.warn(
        { err: error, job_id: request.job_id },
        'the orchestrator was not told the step waits; it resumes at the timeout',
      );
    }
  }

  /** Tells the orchestrator; on success the row goes. A failure leaves it to be sent again. */
  private async report(jobId: string, workspace: string, outcome: AgentStepOutcome): Promise<void> {
    try {
      const reply = await createOrchestratorAgentStepClient(this.mesh).complete({
        job_id: jobId,
        workspace,
        ...outcome,
      });
      if (!reply.accepted)
        this.logger.info(
          { job_id: jobId },
          'the step had already ended (cancelled?); its outcome is dropped',
        );
    } catch (error) {
      if (!(error instanceof MeshError && error.code === 'NOT_FOUND')) {
        this.logger.warn(
          { err: error, job_id: jobId },
          'the orchestrator did not take the outcome; it is sent again',
        );
        return;
      }
      this.logger.warn({ job_id: jobId }, 'the orchestrator does not know the step; its outcome is dropped');
    }
    await this.repository.remove(jobId);
  }

  /** Renews this replica's leases, then claims expired steps for its free slots. */
  private async poll(): Promise<void> {
    if (this.stopping) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    try {
      const held = new Set(
        await this.repository.renew(this.owner, [...this.running.keys()], this.settings.leaseMs),
      );
      // Their memory tickets with them (a replica that stops renewing leaves both to run out).
      await this.turns
        .renew([...held])
        .catch((error: unknown) => this.logger.warn({ err: error }, 'memory tickets could not be renewed'));
      for (const [jobId, controller] of this.running) {
        // Renewed too late (a stalled replica): another one has it now, so this run stops.
        if (held.has(jobId)) continue;
        this.logger.warn(
          { job_id: jobId },
          'the lease on the agent step was lost to another replica; this run stops',
        );
        controller.abort();
      }
      const free = this.settings.maxRuns - this.busy;
      const claimed = await this.repository.claimExpired(this.owner, this.settings.leaseMs, free);
      // Fewer than asked for: nothing else waits (that this replica knows of).
      if (free > 0 && claimed.length < free) this.backlog = false;
      for (const row of claimed) await this.resume(row);
    } catch (error) {
      this.logger.warn({ err: error }, 'agent step leases could not be renewed or claimed');
    } finally {
      this.polling = false;
      if (this.pollAgain) {
        this.pollAgain = false;
        void this.poll();
      }
    }
  }

  /** Tells the orchestrator a parked step runs again; false (the row dropped) when it ended meanwhile. */
  private async unpark(row: AgentRunRow): Promise<boolean> {
    try {
      const reply = await createOrchestratorAgentStepClient(this.mesh).wait({
        job_id: row.jobId,
        workspace: row.workspace,
        waiting: null,
      });
      if (reply.recorded) return true;
    } catch (error) {
      this.logger.warn(
        { err: error, job_id: row.jobId },
        'the orchestrator was not told the step runs again',
      );
      return true;
    }
    this.logger.info(
      { job_id: row.jobId },
      'the step ended while its agent was parked (cancelled?); it is dropped',
    );
    await this.repository.remove(row.jobId);
    return false;
  }

  private async resume(row: AgentRunRow): Promise<void> {
    if (row.outcome) return this.report(row.jobId, row.workspace, row.outcome);
    if (row.attempts > this.settings.maxAttempts) {
      const outcome: AgentStepOutcome = {
        success: false,
        result: {
          error: {
            name: 'AgentRunInterrupted',
            message: `the agent step was interrupted ${row.attempts - 1} times (its agent-runtime replica stopped, or the database or a service it called failed under it); FLOWMESH_AGENT_MAX_ATTEMPTS is ${this.settings.maxAttempts}`,
          },
        },
      };
      await this.repository.saveOutcome(row.jobId, outcome);
      return this.report(row.jobId, row.workspace, outcome);
    }
    let token: string;
    try {
      token = this.sealer.open(row.sealedToken, row.jobId);
    } catch (error) {
      const outcome: AgentStepOutcome = {
        success: false,
        result: { error: { name: 'AgentRunInterrupted', message: (error as Error).message } },
      };
      await this.repository.saveOutcome(row.jobId, outcome);
      return this.report(row.jobId, row.workspace, outcome);
    }
    if (row.attempts > 1)
      this.logger.warn(
        { job_id: row.jobId, attempt: row.attempts },
        'agent step started again after its replica stopped',
      );
    // Progress is newer than a checkpoint: it is kept only after the parked agent went on.
    if (row.progress)
      return this.start(
        { ...row.request, job_token: token },
        { progress: row.progress, calls: row.calls },
        row.answers,
      );
    if (row.checkpoint && !(await this.unpark(row))) return;
    // Claimed before (attempts counts claims since it parked): a replica took the answer up and
    // stopped while the approved calls ran; what became of them is in `calls`.
    const retaken = row.checkpoint && row.attempts > 1 ? { calls: row.calls } : {};
    this.start(
      { ...row.request, job_token: token },
      row.checkpoint ? { checkpoint: row.checkpoint, answer: row.answer, ...retaken } : undefined,
      row.answers,
    );
  }
}

/** Owners of replicas running in this process (a test may start several). */
const LIVE_OWNERS = new Set<string>();

/** `host:pid:random`: which host and process a replica runs in, and which start of it. */
function ownerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Whether the replica `owner` (one on this host) still runs: one of this process, or a process
 * that is alive. A process with this process's pid that is not one of its replicas is an earlier
 * start of this container (a restarted container reuses its pid).
 */
function ownerAlive(owner: string): boolean {
  if (LIVE_OWNERS.has(owner)) return true;
  const parts = owner.split(':');
  const pid = Number(parts[parts.length - 2]);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
