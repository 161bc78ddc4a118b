import { SERVICE_CONFIG } from '@flowmesh/bootstrap';
import { EVENT_TRIGGER_KINDS } from '@flowmesh/contracts';
import { OutboundPolicy, type AllowedCidr } from '@flowmesh/outbound';
import { Module, type DynamicModule } from '@nestjs/common';
import { TriggersSharedModule } from '../triggers-shared.module.js';
import { EVENT_LISTENERS } from './event-listener.js';
import { DeliverySlots } from './delivery-slots.store.js';
import { EventTriggerStore } from './event-trigger.store.js';
import { EVENT_TRIGGER_POLL_MS, EventTriggerSupervisor } from './event-trigger.supervisor.js';
import { EventTriggersApi } from './event-triggers-api.service.js';
import { eventTriggersController } from './event-triggers.controller.js';
import { EventTriggersHandler } from './event-triggers.handler.js';
import { AmqpEventListener } from './kinds/amqp.listener.js';
import { MqttEventListener } from './kinds/mqtt.listener.js';
import { WEBSOCKET_OUTBOUND_POLICY, WebsocketEventListener } from './kinds/websocket.listener.js';
import { PostgresEventListener } from './kinds/postgres.listener.js';
import { KafkaEventListener } from './kinds/kafka.listener.js';
import { NatsEventListener } from './kinds/nats.listener.js';
import { TriggerLeases } from './trigger-leases.js';
import { TriggerRunStarter } from './trigger-run.starter.js';

/** One listener per kind of `EVENT_TRIGGER_KINDS`: a kind without one would never be listened to. */
const LISTENERS = [
  NatsEventListener,
  AmqpEventListener,
  MqttEventListener,
  WebsocketEventListener,
  PostgresEventListener,
  KafkaEventListener,
];

/** How often each replica looks for triggers nobody listens to (ms): a dead replica's move within about this. */
const POLL_MS = 1_000;

/**
 * Event triggers (NATS, AMQP, MQTT, WebSocket, PostgreSQL, Kafka), the service role's: their API over HTTP (one controller per
 * kind, Windmill's `<kind>_triggers/...`) and `orchestrator.event_trigger.*`, and the supervisor
 * that runs each enabled trigger's listener on one replica at a time.
 */
@Module({})
export class EventTriggersModule {
  static forRoot(runApi: DynamicModule): DynamicModule {
    return {
      module: EventTriggersModule,
      imports: [runApi, TriggersSharedModule],
      controllers: [...EVENT_TRIGGER_KINDS.map(eventTriggersController), EventTriggersHandler],
      providers: [
        { provide: EVENT_TRIGGER_POLL_MS, useValue: POLL_MS },
        {
          provide: WEBSOCKET_OUTBOUND_POLICY,
          useFactory: (config: { outboundAllowCidrs: readonly AllowedCidr[] }) =>
            new OutboundPolicy(config.outboundAllowCidrs),
          inject: [SERVICE_CONFIG],
        },
        ...LISTENERS,
        {
          provide: EVENT_LISTENERS,
          useFactory: (...listeners: unknown[]) => listeners,
          inject: LISTENERS,
        },
        EventTriggerStore,
        DeliverySlots,
        TriggerLeases,
        TriggerRunStarter,
        EventTriggerSupervisor,
        EventTriggersApi,
      ],
    };
  }
}
