import { setTimeout as delay } from 'node:timers/promises';
import { jobEvents, type FlowModule } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { JobStore } from '../../store/job.store.js';
import { ExpressionEvaluator } from '../expressions/expression.evaluator.js';
import type { ExpressionScope } from '../expressions/expression-scope.js';
import { FlowStateStore } from '../flow-state.store.js';
import type { FlowRun } from '../flow-run.js';
import { evaluateTransform } from '../input-transforms.js';
import type { ModuleOutcome } from '../module-outcome.js';
import { errorObject } from '../steps/leaf-step.runner.js';
import type { GateDecision } from './approval.gate.js';

/**
 * Parking: a flow that waits (a step's `sleep`, a retry delay, an approval) writes when it is
 * due and lets go of its worker; the timer poller wakes it then (an approval wakes it sooner).
 */
@Injectable()
export class SleepGate {
  constructor(
    private readonly evaluator: ExpressionEvaluator,
    private readonly store: FlowStateStore,
    private readonly jobs: JobStore,
  ) {}

  /**
   * A step's `sleep` (seconds, static or an expression), waited before it starts: 'ok' to go on,
   * 'parked', or the step's failure when the sleep is not a number.
   */
  async beforeStep(
    run: FlowRun,
    index: number,
    module: FlowModule,
    scope: ExpressionScope,
    fieldPath: string,
  ): Promise<'ok' | 'parked' | ModuleOutcome> {
    if (!module.sleep) return 'ok';
    const pending = run.runtime.sleep;
    if (pending?.step === index) {
      if (Date.now() >= pending.at) {
        delete run.runtime.sleep;
        return 'ok';
      }
      return this.parkUntil(run, pending.at);
    }
    let seconds: unknown;
    try {
      seconds = await evaluateTransform(this.evaluator, module.sleep, scope, `${fieldPath}.sleep`);
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
        throw new Error(
          `${fieldPath}.sleep: expected a number of seconds, got ${JSON.stringify(seconds) ?? 'undefined'}`,
        );
      }
    } catch (error) {
      return { success: false, result: { error: errorObject(error) }, status: {}, statements: [] };
    }
    if (seconds === 0) return 'ok';
    const at = Date.now() + Math.round(seconds * 1000);
    if (run.ephemeral) {
      await delay(at - Date.now());
      return 'ok';
    }
    run.runtime.sleep = { step: index, at };
    return this.parkUntil(run, at);
  }

  async parkUntil(run: FlowRun, at: number): Promise<'parked'> {
    if (run.ephemeral) throw new Error(`a squashed iteration cannot wait`);
    await this.store.save(run, [], { wake_at: new Date(at) });
    return 'parked';
  }

  /** Waits for approvals: the module after the suspended one is WaitingForEvents, the job suspended. */
  async parkForApproval(
    run: FlowRun,
    index: number,
    gate: Extract<GateDecision, { kind: 'wait' }>,
  ): Promise<'parked'> {
    if (run.ephemeral) throw new Error(`a squashed iteration cannot wait for an approval`);
    const module = run.modules[index];
    if (module) {
      run.status.modules[index] = {
        type: 'WaitingForEvents',
        id: module.id,
        count: gate.required,
        job: gate.suspendedJob,
      };
    }
    const first = run.runtime.suspendTimeout?.step !== index;
    run.runtime.suspendTimeout = { step: index, at: gate.timeoutAt };
    const statements = first
      ? [
          this.jobs.event(
            jobEvents.suspended,
            {
              job_id: run.id,
              workspace: run.job.workspace,
              root_job: run.job.root_job,
              parent_job: run.job.parent_job,
              step_id: run.modules[index - 1].id,
              required_events: gate.required,
              timeout_at: new Date(gate.timeoutAt).toISOString(),
            },
            `suspended:${run.id}:${index}:${gate.suspendedJob}`,
          ),
        ]
      : [];
    await this.store.save(run, statements, { status: 'suspended', wake_at: new Date(gate.timeoutAt) });
    return 'parked';
  }
}
