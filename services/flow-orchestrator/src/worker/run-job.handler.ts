import { ORCHESTRATOR_WORKER_DURABLE, runJobWork, type RunJobWork } from '@flowmesh/contracts';
import { HandleWork } from '@flowmesh/messaging';
import { Controller, type Type } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import type { EngineConfig } from '../engine/engine.config.js';
import { JobRunner } from './job-runner.service.js';

/**
 * Takes `work.<tag>.job` for each configured tag (one durable consumer per tag, shared by all
 * workers of that tag), `concurrency` at a time. Made per process because the tags come from
 * configuration.
 */
export function createRunJobHandler(
  tags: readonly string[],
  engine: Pick<EngineConfig, 'workerConcurrency' | 'ackWaitMs'>,
): Type<unknown> {
  @Controller()
  class RunJobHandler {
    constructor(private readonly jobs: JobRunner) {}

    @HandleWork(runJobWork, {
      tags,
      durable: ORCHESTRATOR_WORKER_DURABLE,
      concurrency: engine.workerConcurrency,
      ackWaitMs: engine.ackWaitMs,
      maxAckPending: Math.max(256, engine.workerConcurrency * 4),
    })
    run(@Payload() job: RunJobWork): Promise<void> {
      return this.jobs.run(job);
    }
  }
  return RunJobHandler;
}
