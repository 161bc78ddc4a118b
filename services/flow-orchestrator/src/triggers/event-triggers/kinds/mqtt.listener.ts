import { createHash } from 'node:crypto';
import type { MqttResource, NewMqttTrigger } from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { connect, type IClientOptions, type IPublishPacket } from 'mqtt';
import { DeliverySlots } from '../delivery-slots.store.js';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';
import type { EventTriggerRow } from '../event-trigger.store.js';

/** How long the broker keeps a session while the listener is away, unless the trigger says (s). */
const DEFAULT_SESSION_EXPIRY_S = 24 * 60 * 60;
/**
 * The QoS each subscription asks for. QoS 2 is asked as 1: mqtt.js keeps the QoS 2 handshake's
 * state in memory, so a listener killed between PUBREC and PUBREL would lose that message; at
 * QoS 1 the broker delivers it again and the run's identity makes the pair exactly once.
 */
const QOS = { qos0: 0, qos1: 1, qos2: 1 } as const;

/**
 * MQTT triggers, Windmill's (topic filters with a QoS each, MQTT 5 or 3.1.1), over `mqtt`. The
 * broker keeps the listener's session (a client id derived from the trigger unless given, clean
 * session off unless asked): what is published while the listener moves to another replica waits
 * for it. A QoS 1 or 2 message is acknowledged (PUBACK, PUBREC) only once its run is durably
 * queued; one the listener died before acknowledging comes again, marked DUP, on the same packet
 * id, and its run's job id is derived from the session, the packet id and how many messages that
 * packet id carried (`DeliverySlots`), so it starts nothing twice. QoS 0 is at most once, as the
 * protocol says; QoS 2 is served as QoS 1 (see `QOS`). The event (Windmill's): `{kind: "mqtt", payload, topic, retain, pkid, qos, v5}`.
 */
@Injectable()
export class MqttEventListener implements EventListener {
  readonly kind = 'mqtt' as const;
  private readonly log = new Logger(MqttEventListener.name);

  constructor(private readonly slots: DeliverySlots) {}

  async start(context: ListenerContext): Promise<RunningListener> {
    const resource = context.connection as MqttResource;
    const config = context.trigger.config as unknown as NewMqttTrigger;
    const clientId = config.client_id || defaultClientId(context.trigger);
    const client = connect(urlOf(resource), optionsOf(resource, config, clientId));
    const { ended, end } = endSignal();
    // Set before the connection is up: a resumed session delivers what it kept at once.
    client.handleMessage = (packet, done) => {
      this.handle(packet, clientId, context).then(
        () => done(),
        (error: unknown) => {
          // Not acknowledged: the broker delivers it again on the next connection.
          this.log.warn(
            `mqtt trigger ${context.trigger.path}: a message on ${packet.topic} started no run (${(error as Error).message}); reconnecting for its redelivery`,
          );
          end(new Error(`a message on ${packet.topic} could not start its run`));
        },
      );
    };
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve());
        client.once('error', reject);
        client.once('close', () =>
          reject(new Error(`the MQTT broker ${resource.broker} closed the connection`)),
        );
      });
      client.on('error', (error) => end(error));
      client.on('close', () => end(new Error(`the connection to the MQTT broker ${resource.broker} closed`)));
      const granted = await client.subscribeAsync(
        Object.fromEntries(config.subscribe_topics.map((topic) => [topic.topic, { qos: QOS[topic.qos] }])),
      );
      const refused = granted.filter((grant) => grant.qos >= 128);
      if (refused.length > 0)
        throw new Error(`the broker refused ${refused.map((grant) => grant.topic).join(', ')}`);
    } catch (error) {
      client.end(true);
      throw error;
    }
    context.listening();
    return {
      ended,
      stop: async () => {
        await client.endAsync(true).catch(() => undefined);
      },
    };
  }

  private async handle(packet: IPublishPacket, clientId: string, context: ListenerContext): Promise<void> {
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const identity =
      packet.qos > 0 && packet.messageId !== undefined
        ? await this.slots.identityOf(
            context.trigger,
            `${clientId}:${packet.messageId}`,
            createHash('sha256').update(packet.topic).update('\u0000').update(payload).digest('base64'),
            packet.dup,
          )
        : undefined;
    await context.deliver({
      ...(identity === undefined ? {} : { identity }),
      payload,
      info: {
        topic: packet.topic,
        retain: packet.retain,
        pkid: packet.messageId ?? 0,
        qos: packet.qos,
        v5: packet.properties
          ? {
              payload_format_indicator: packet.properties.payloadFormatIndicator ?? null,
              topic_alias: packet.properties.topicAlias ?? null,
              response_topic: packet.properties.responseTopic ?? null,
              correlation_data: packet.properties.correlationData
                ? [...packet.properties.correlationData]
                : null,
              user_properties: packet.properties.userProperties
                ? Object.entries(packet.properties.userProperties)
                : null,
              subscription_identifiers: packet.properties.subscriptionIdentifier ?? null,
              content_type: packet.properties.contentType ?? null,
            }
          : null,
      },
    });
  }
}

/** A client id the trigger keeps across replicas (the broker's session is named by it). */
function defaultClientId(trigger: Pick<EventTriggerRow, 'workspace_id' | 'path'>): string {
  const digest = createHash('sha256').update(`${trigger.workspace_id}/${trigger.path}`).digest('hex');
  return `flowmesh-${digest.slice(0, 16)}`;
}

function urlOf(resource: MqttResource): string {
  const tls = resource.tls?.enabled === true;
  return `${tls ? 'mqtts' : 'mqtt'}://${resource.broker}:${resource.port}`;
}

function optionsOf(resource: MqttResource, config: NewMqttTrigger, clientId: string): IClientOptions {
  const v5 = config.client_version !== 'v3';
  const clean = v5 ? (config.v5_config?.clean_start ?? false) : (config.v3_config?.clean_session ?? false);
  const ca = resource.tls?.ca_certificate?.trim();
  return {
    clientId,
    protocolVersion: v5 ? 5 : 4,
    clean,
    // The supervisor reconnects with backoff and says so on the trigger; the client does not hide it.
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    keepalive: 60,
    ...(resource.credentials?.username ? { username: resource.credentials.username } : {}),
    ...(resource.credentials?.password ? { password: resource.credentials.password } : {}),
    ...(ca ? { ca } : {}),
    ...(v5
      ? {
          properties: {
            sessionExpiryInterval: config.v5_config?.session_expiry_interval ?? DEFAULT_SESSION_EXPIRY_S,
            ...(config.v5_config?.topic_alias_maximum == null
              ? {}
              : { topicAliasMaximum: config.v5_config.topic_alias_maximum }),
          },
        }
      : {}),
  };
}
