import {
  ORCHESTRATOR_PRIORITY_DURABLE,
  ORCHESTRATOR_WORKER_DURABLE,
  runJobWork,
  runPriorityJobWork,
  type RunJobWork,
} from '@flowmesh/contracts';
import { HandleWork, MeshContext } from '@flowmesh/messaging';
import { Controller, type Type } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import type { EngineConfig } from '../engine/engine.config.js';
import { JobRunner } from './job-runner.service.js';

/**
 * Takes `work.<tag>.job` for each configured tag (one durable consumer per tag, shared by all
 * workers of that tag), `concurrency` at a time, and the priority lane `work.<tag>.priority` (jobs
 * with a priority above 0) on as many slots of its own, so those never wait behind the backlog.
 * Made per process because the tags come from configuration.
 */
export function createRunJobHandler(
  tags: readonly string[],
  engine: Pick<EngineConfig, 'workerConcurrency' | 'ackWaitMs'>,
): Type<unknown> {
  /** Both lanes alike: their own durable consumers, `concurrency` slots each. */
  const lane = (durable: string) => ({
    tags,
    durable,
    concurrency: engine.workerConcurrency,
    ackWaitMs: engine.ackWaitMs,
    maxAckPending: Math.max(256, engine.workerConcurrency * 4),
  });

  @Controller()
  class RunJobHandler {
    constructor(private readonly jobs: JobRunner) {}

    @HandleWork(runJobWork, lane(ORCHESTRATOR_WORKER_DURABLE))
    run(@Payload() job: RunJobWork, @Ctx() context: MeshContext): Promise<void> {
      return this.jobs.run(job, context.stopping);
    }

    @HandleWork(runPriorityJobWork, lane(ORCHESTRATOR_PRIORITY_DURABLE))
    runPriority(@Payload() job: RunJobWork, @Ctx() context: MeshContext): Promise<void> {
      return this.jobs.run(job, context.stopping);
    }
  }
  return RunJobHandler;
}
