import { MeshError } from '@flowmesh/contracts';
import { errors } from '@nats-io/nats-core';

/** A NATS request failure as the typed error a caller branches on, naming the subject. */
export function mapRequestError(error: unknown, subject: string, timeoutMs: number): MeshError {
  if (error instanceof errors.TimeoutError) {
    return new MeshError('TIMEOUT', `no reply on ${subject} within ${timeoutMs} ms`, { subject, timeoutMs });
  }
  if (
    (error instanceof errors.RequestError && error.isNoResponders()) ||
    error instanceof errors.NoRespondersError
  ) {
    return new MeshError('UNAVAILABLE', `no service answers ${subject}`, { subject });
  }
  if (error instanceof errors.ClosedConnectionError || error instanceof errors.DrainingConnectionError) {
    return new MeshError('UNAVAILABLE', `cannot send on ${subject}: the NATS connection is closing`, {
      subject,
    });
  }
  if (error instanceof errors.PermissionViolationError) {
    return new MeshError('PERMISSION_DENIED', `this service may not publish on ${subject}`, { subject });
  }
  if (isMaxPayloadError(error)) {
    return new MeshError(
      'LIMIT_EXCEEDED',
      `the request on ${subject} is larger than the NATS server's max_payload`,
      { subject },
    );
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new MeshError('UNAVAILABLE', `request on ${subject} failed: ${reason}`, { subject });
}

/**
 * Whether the request went without a reply: no service subscribed (a restart), or none answered
 * in time (it died holding the request). A request that is safe to repeat may then be sent again;
 * a closing connection, a refused permission or an answer never is.
 */
export function noReplyCame(error: unknown): boolean {
  return (
    error instanceof errors.TimeoutError ||
    (error instanceof errors.RequestError && error.isNoResponders()) ||
    error instanceof errors.NoRespondersError
  );
}

/** nats.js refuses a body over the server's `max_payload` before sending it. */
function isMaxPayloadError(error: unknown): boolean {
  return error instanceof errors.InvalidArgumentError && error.message.includes('max_payload');
}

/** A JetStream publish failure: no stream on the subject, no PubAck in time, or a rejected message. */
export function mapPublishError(error: unknown, subject: string): MeshError {
  if (error instanceof MeshError) return error;
  if (
    (error instanceof errors.RequestError && error.isNoResponders()) ||
    error instanceof errors.NoRespondersError
  ) {
    return new MeshError('UNAVAILABLE', `no JetStream stream stores ${subject} (streams not created?)`, {
      subject,
    });
  }
  if (error instanceof errors.TimeoutError) {
    return new MeshError('TIMEOUT', `JetStream did not acknowledge the publish on ${subject}`, { subject });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new MeshError('UNAVAILABLE', `publish on ${subject} failed: ${reason}`, { subject });
}
