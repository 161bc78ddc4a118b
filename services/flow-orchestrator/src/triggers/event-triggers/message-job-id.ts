import type { EventTriggerKind } from '@flowmesh/contracts';
import { uuidV5 } from '../uuid-v5.js';

/** The namespace of triggered messages' job ids (a fixed random uuid). */
const MESSAGE_NAMESPACE = Buffer.from('b7c1e94a0d2f4f6e8a35c2d90e7b1f44', 'hex');

/**
 * The job id of the run a message starts: a uuid v5 of the trigger and the message's identity on
 * its broker (a JetStream stream and sequence, an AMQP message id, an MQTT session's packet and
 * generation), so a message delivered again after a listener died names the run it already
 * started, and the run use case starts nothing twice.
 */
export function messageJobId(
  workspace: string,
  kind: EventTriggerKind,
  triggerPath: string,
  identity: string,
): string {
  return uuidV5(MESSAGE_NAMESPACE, `${workspace}\u0000${kind}\u0000${triggerPath}\u0000${identity}`);
}
