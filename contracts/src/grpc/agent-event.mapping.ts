import type { AgentStreamEnvelope, AgentStreamEvent } from '../orchestrator/agent-stream.schema.js';

/**
 * `AgentStreamEvent` is a union on `type` in the contracts and a oneof in the proto, one member
 * per type named after it: `{type: 'token_delta', content}` <-> `{token_delta: {content}}`.
 */
export function agentEventToGrpcJson(event: AgentStreamEvent): Record<string, unknown> {
  const { type, ...fields } = event;
  return { [type]: fields };
}

export function agentEventFromGrpcJson(json: Record<string, unknown>): AgentStreamEvent | undefined {
  const type = Object.keys(json).find((key) => json[key] !== undefined && key !== 'event');
  return type === undefined ? undefined : ({ type, ...(json[type] as object) } as AgentStreamEvent);
}

export function agentEnvelopeToGrpcJson(envelope: AgentStreamEnvelope): Record<string, unknown> {
  return { ...envelope, event: agentEventToGrpcJson(envelope.event) };
}
