import {
  runStreamSubject,
  type AgentStreamEnvelope,
  type AgentStreamEvent,
  type ChatEvent,
} from '@flowmesh/contracts';
import type { MeshConnection } from '@flowmesh/messaging';

/**
 * The stream of a step with `streaming: true`, published on its run's stream subject (core NATS):
 * the model's deltas as the gateway streams them, and each tool's run and result.
 */
export class StepStream {
  private seq = 0;

  constructor(
    private readonly conn: MeshConnection,
    private readonly step: { readonly rootJob: string; readonly jobId: string; readonly stepId: string },
  ) {}

  readonly publish = (event: AgentStreamEvent): void => {
    const envelope: AgentStreamEnvelope = {
      job_id: this.step.jobId,
      step_id: this.step.stepId,
      seq: this.seq++,
      event,
    };
    this.conn.nc.publish(
      this.conn.space.subject(runStreamSubject(this.step.rootJob)),
      JSON.stringify(envelope),
    );
  };

  /** A gateway chat event, as the step's stream says it (events it does not stream are left out). */
  relay(event: ChatEvent): void {
    if (event.type === 'text_delta') this.publish({ type: 'token_delta', content: event.text });
    else if (event.type === 'reasoning_delta' && event.text)
      this.publish({ type: 'reasoning_token_delta', content: event.text });
    else if (event.type === 'tool_call_started')
      this.publish({ type: 'tool_call', call_id: event.id, function_name: event.name });
    else if (event.type === 'tool_call_delta')
      this.publish({ type: 'tool_call_arguments', call_id: event.id, arguments: event.arguments });
  }
}
