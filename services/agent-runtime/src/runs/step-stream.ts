import {
  AgentStreamEnvelopeSchema,
  STREAMS,
  stepStreamSubject,
  type AgentStreamEnvelope,
  type AgentStreamEvent,
  type ChatEvent,
} from '@flowmesh/contracts';
import type { MeshConnection } from '@flowmesh/messaging';
import { JetStreamApiError } from '@nats-io/jetstream';

interface StreamedStep {
  readonly rootJob: string;
  readonly jobId: string;
  readonly stepId: string;
}

/**
 * The stream of a step with `streaming: true`, published on its own subject of its run's stream
 * (core NATS): the model's deltas as the gateway streams them, and each tool's run and result.
 */
export class StepStream {
  private readonly subject: string;

  constructor(
    private readonly conn: MeshConnection,
    private readonly step: StreamedStep,
    private seq = 0,
  ) {
    this.subject = conn.space.subject(stepStreamSubject(step.rootJob, step.jobId));
  }

  /**
   * The step's stream, going on after the last event published for it before (by a replica that
   * stopped, or before the step parked), as the `runStreams` stream kept it: a reader sees one
   * `seq` run without repeats. A step that said nothing yet starts at 0.
   */
  static async resume(conn: MeshConnection, step: StreamedStep): Promise<StepStream> {
    const subject = conn.space.subject(stepStreamSubject(step.rootJob, step.jobId));
    let next = 0;
    try {
      const last = await conn.jsm.streams.getMessage(conn.space.streamName(STREAMS.runStreams.name), {
        last_by_subj: subject,
      });
      const envelope = last ? AgentStreamEnvelopeSchema.safeParse(last.json()) : undefined;
      if (envelope?.success) next = envelope.data.seq + 1;
    } catch (error) {
      if (!(error instanceof JetStreamApiError)) throw error; // none: the step had said nothing
    }
    return new StepStream(conn, step, next);
  }

  readonly publish = (event: AgentStreamEvent): void => {
    const envelope: AgentStreamEnvelope = {
      job_id: this.step.jobId,
      step_id: this.step.stepId,
      seq: this.seq++,
      event,
    };
    this.conn.nc.publish(this.subject, JSON.stringify(envelope));
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
