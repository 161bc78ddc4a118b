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
      else if (row.error_handler_path || row.retry) {
        await this.flows.run(
          { ...command, value: singleScriptFlow(row, Object.keys(args)) },
          ownerIdentity(row),
        );
      } else await this.scripts.run(command, ownerIdentity(row));
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

/**
 * A script with the trigger's retry and error handler, as Windmill runs one (`SingleScriptFlow`):
 * a flow of one step, the script with the trigger's `retry`, whose failure module is the error
 * handler with Windmill's arguments (`error`, `path`, `is_flow`, `trigger_path`, `workspace_id`)
 * and the trigger's `error_handler_args`. The script's preprocessor does not run there (a flow
 * step runs `main`): the step gets the arguments its `main` would.
 */
export function singleScriptFlow(row: EventTriggerRow, argNames: readonly string[]): Record<string, unknown> {
  const fromInput = (name: string): [string, { type: string; expr: string }] => [
    name,
    { type: 'javascript', expr: `flow_input[${JSON.stringify(name)}]` },
  ];
  const constant = (value: unknown) => ({ type: 'static', value });
  return {
    modules: [
      {
        id: 'trigger',
        value: {
          type: 'script',
          path: row.script_path,
          input_transforms: Object.fromEntries(argNames.map(fromInput)),
        },
        ...(row.retry ? { retry: row.retry } : {}),
      },
    ],
    ...(row.error_handler_path
      ? {
          failure_module: {
            id: 'failure',
            value: {
              type: 'script',
              path: row.error_handler_path,
              input_transforms: {
                ...Object.fromEntries(
                  Object.entries(row.error_handler_args ?? {}).map(([name, value]) => [
                    name,
                    constant(value),
                  ]),
                ),
                error: { type: 'javascript', expr: 'error' },
                path: constant(row.script_path),
                is_flow: constant(false),
                trigger_path: constant(`${row.kind}_trigger/${row.path}`),
                workspace_id: constant(row.workspace_id),
              },
            },
          },
        }
      : {}),
  };
}
