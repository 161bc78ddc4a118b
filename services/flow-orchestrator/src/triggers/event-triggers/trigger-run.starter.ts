import type { CallerIdentity, TriggerEvent } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { RunFlowUseCase } from '../../jobs/run-flow.use-case.js';
import { RunScriptUseCase } from '../../jobs/run-script.use-case.js';
import { OwnerTokens } from '../owner-tokens.js';
import { TriggerMetrics } from '../trigger.metrics.js';
import type { TriggerMessage } from './event-listener.js';
import type { EventTriggerRow } from './event-trigger.store.js';
import { eventTriggerLabel } from './event-trigger-label.js';
import { passesFilters } from './message-filter.js';
import { messageJobId } from './message-job-id.js';

/**
 * Turns a message into its run, as Windmill's listeners do: the payload base64-encoded as the
 * argument `payload` (a WebSocket's text as `msg`), or, for a runnable with a preprocessor, the
 * event `{kind, payload, ...}` with what the kind adds (subject, topic, routing key, url, ...). The run acts as the trigger's
 * owner and its job id comes from the message's identity, so a redelivered message is one run.
 */
@Injectable()
export class TriggerRunStarter {
  constructor(
    private readonly owners: OwnerTokens,
    private readonly flows: RunFlowUseCase,
    private readonly scripts: RunScriptUseCase,
    private readonly metrics: TriggerMetrics,
  ) {}

  /** Resolves once the run is durably queued, or at once when the filters drop the message. */
  async deliver(row: EventTriggerRow, message: TriggerMessage): Promise<void> {
    if (!passesFilters(row.filters, row.filter_logic, message.payload)) return;
    const args = message.args ?? { payload: Buffer.from(message.payload).toString('base64') };
    const event: TriggerEvent = { ...args, ...message.info, kind: row.kind };
    const token = this.owners.open(
      { sealed: row.owner_token_sealed },
      eventTriggerLabel(row.kind, row.workspace_id, row.path),
    );
    const command = {
      actor: { token },
      workspace: row.workspace_id,
      path: row.script_path,
      args: { ...args },
      apply_preprocessor: true,
      trigger: { kind: row.kind, path: row.path },
      trigger_event: event,
      ...(message.identity === undefined
        ? {}
        : { job_id: messageJobId(row.workspace_id, row.kind, row.path, message.identity) }),
    };
    try {
      if (row.is_flow) await this.flows.run(command, ownerIdentity(row));
      else await this.scripts.run(command, ownerIdentity(row));
    } catch (error) {
      this.metrics.failed(row.kind);
      throw error;
    }
    this.metrics.fired(row.kind);
  }
}

/**
 * Who the run is recorded as started by (as a schedule's): the registry checks the owner's token
 * when it reads the runnable and issues the run's job token from it, and refuses it once the
 * owner lost their rights or left.
 */
function ownerIdentity(row: EventTriggerRow): CallerIdentity {
  return {
    workspace: row.workspace_id,
    kind: 'user',
    username: row.edited_by,
    email: row.email,
    isAdmin: false,
    groups: [],
  };
}
