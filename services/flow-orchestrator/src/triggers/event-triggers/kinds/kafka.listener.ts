import type { KafkaResource, NewKafkaTrigger } from '@flowmesh/contracts';
import { Injectable } from '@nestjs/common';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';

/**
 * Kafka triggers, Windmill's: `topics` read by the consumer group `group_id` (kafkajs). Offsets
 * are committed by hand, a message's (its offset + 1) once its run is durably queued; a listener
 * killed before that has the group read the message again, and its run's job id (the topic, the
 * partition, the offset) makes that a no-op. A group's new member starts at the latest offset,
 * as Windmill's. The event (Windmill's): `{kind: "kafka", payload, brokers, topic, group_id}`,
 * with `partition`, `offset` and `key` beside them.
 */
@Injectable()
export class KafkaEventListener implements EventListener {
  readonly kind = 'kafka' as const;

  async start(context: ListenerContext): Promise<RunningListener> {
    const resource = context.connection as KafkaResource;
    const config = context.trigger.config as unknown as NewKafkaTrigger;
    const kafka = new Kafka(clientOf(resource, context.trigger.path));
    const consumer = kafka.consumer({
      groupId: config.group_id,
      // The supervisor restarts a crashed consumer with backoff, and says so on the trigger.
      retry: { retries: 3, restartOnFailure: () => Promise.resolve(false) },
    });
    const { ended, end } = endSignal();
    consumer.on(consumer.events.CRASH, (event) => end(event.payload.error));
    consumer.on(consumer.events.DISCONNECT, () => end(new Error('the Kafka consumer disconnected')));
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: config.topics, fromBeginning: false });
      await consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic, partition, message }) => {
          await context.deliver({
            identity: `${topic}:${partition}:${message.offset}`,
            payload: message.value ?? Buffer.alloc(0),
            info: {
              brokers: resource.brokers,
              topic,
              group_id: config.group_id,
              partition,
              offset: message.offset,
              ...(message.key ? { key: message.key.toString('utf8') } : {}),
            },
          });
          // Committed only once the run is queued (a throw above leaves it to be read again).
          await consumer.commitOffsets([
            { topic, partition, offset: (BigInt(message.offset) + 1n).toString() },
          ]);
        },
      });
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    context.listening();
    return {
      ended,
      stop: async () => {
        await consumer.disconnect().catch(() => undefined);
      },
    };
  }
}

function clientOf(resource: KafkaResource, triggerPath: string): KafkaConfig {
  const security = resource.security ?? { label: 'PLAINTEXT' as const };
  const tls =
    security.label === 'SSL' || security.label === 'SASL_SSL'
      ? { ssl: security.ca_pem ? { ca: [security.ca_pem] } : true }
      : {};
  const sasl: { sasl?: SASLOptions } =
    security.label === 'SASL_PLAINTEXT' || security.label === 'SASL_SSL'
      ? {
          sasl: {
            mechanism: security.mechanism,
            username: security.username,
            password: security.password,
          },
        }
      : {};
  return {
    clientId: `flowmesh-trigger-${triggerPath.replaceAll('/', '_')}`,
    brokers: resource.brokers,
    connectionTimeout: 10_000,
    // A broker that does not answer is the supervisor's to retry (with backoff, shown on the
    // trigger); kafkajs's own retries would hide it for minutes.
    retry: { retries: 2, initialRetryTime: 300, maxRetryTime: 2_000 },
    logLevel: logLevel.NOTHING,
    ...tls,
    ...sasl,
  };
}
