import { ATTR_FLOWMESH_WORKSPACE } from '@flowmesh/telemetry';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ModuleProgress } from './module-outcome.js';

const tracer = trace.getTracer('flowmesh.flow-orchestrator');

export const ATTR_FLOWMESH_JOB_ID = 'flowmesh.job.id';
export const ATTR_FLOWMESH_STEP_ID = 'flowmesh.step.id';
export const ATTR_FLOWMESH_STEP_TYPE = 'flowmesh.step.type';
/** `done` or `parked` (the step waits for a job, an agent, an approval: it goes on in a later span). */
export const ATTR_FLOWMESH_STEP_PROGRESS = 'flowmesh.step.progress';

export interface TracedStep {
  readonly jobId: string;
  readonly workspace: string;
  readonly stepId: string;
  readonly stepType: string;
}

/**
 * One INTERNAL span `step <id>` around a turn of a flow step, so the trace of a run shows each
 * step (and, below it, the jobs and agent calls it sends over NATS). A step that parks ends its
 * span then; the turn that finishes it has a span of its own.
 */
export function traceStep(step: TracedStep, run: () => Promise<ModuleProgress>): Promise<ModuleProgress> {
  return tracer.startActiveSpan(
    `step ${step.stepId}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR_FLOWMESH_JOB_ID]: step.jobId,
        [ATTR_FLOWMESH_WORKSPACE]: step.workspace,
        [ATTR_FLOWMESH_STEP_ID]: step.stepId,
        [ATTR_FLOWMESH_STEP_TYPE]: step.stepType,
      },
    },
    async (span) => {
      try {
        const progress = await run();
        span.setAttribute(ATTR_FLOWMESH_STEP_PROGRESS, progress.kind);
        if (progress.kind === 'done' && !progress.outcome.success)
          span.setStatus({ code: SpanStatusCode.ERROR });
        return progress;
      } catch (error) {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: error instanceof Error ? error.name : 'Error',
        });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
