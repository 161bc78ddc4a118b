import type { AmqpResource, NewAmqpTrigger } from '@flowmesh/contracts';
import { Injectable, Logger } from '@nestjs/common';
import { connect, type Channel, type ConsumeMessage } from 'amqplib';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';

/** Unacknowledged messages the broker hands the listener at once, unless the trigger says. */
const DEFAULT_PREFETCH = 16;
/** A message whose run could not be started goes back to the queue after this long (ms). */
const REQUEUE_DELAY_MS = 2_000;

/**
 * AMQP 0-9-1 triggers (RabbitMQ), as Windmill's: a queue (declared durable unless
 * `declare_queue` is false), bound to `exchange` for each routing key, consumed with manual
 * acknowledgements: a message is acknowledged once its run is durably queued, and requeued when
 * its run could not be started. A message carrying a `message_id` has its run's job id derived
 * from it (and the queue), so a message the broker delivers again after a listener died is one
 * run; without one, such a redelivery may run twice (AMQP gives a message no other identity).
 * The event (Windmill's): `{kind: "amqp", payload, exchange, routing_key, queue_name,
 * redelivered, delivery_tag}` and the message's `message_id` and `headers`.
 */
@Injectable()
export class AmqpEventListener implements EventListener {
  readonly kind = 'amqp' as const;
  private readonly log = new Logger(AmqpEventListener.name);

  async start(context: ListenerContext): Promise<RunningListener> {
    const resource = context.connection as AmqpResource;
    const config = context.trigger.config as unknown as NewAmqpTrigger;
    const connection = await connect(urlOf(resource), { timeout: 10_000 });
    const { ended, end } = endSignal();
    connection.on('error', (error: Error) => end(error));
    connection.on('close', (error?: Error) => end(error ?? new Error('the AMQP connection closed')));
    const pending = new Set<Promise<void>>();
    let stopping = false;
    try {
      const channel = await connection.createChannel();
      channel.on('error', (error: Error) => end(error));
      channel.on('close', () => {
        if (!stopping) end(new Error('the AMQP channel closed'));
      });
      await channel.prefetch(config.options?.prefetch_count ?? DEFAULT_PREFETCH);
      if (config.options?.declare_queue === false) await channel.checkQueue(config.queue_name);
      else await channel.assertQueue(config.queue_name, { durable: true });
      const exchange = config.exchange;
      if (exchange && exchange.exchange_name.trim() !== '') {
        const keys = exchange.routing_keys.length > 0 ? exchange.routing_keys : [''];
        for (const key of keys) await channel.bindQueue(config.queue_name, exchange.exchange_name, key);
      }
      await channel.consume(
        config.queue_name,
        (msg) => {
          if (msg === null)
            return end(new Error(`the broker cancelled the consumer of ${config.queue_name}`));
          const task = this.handle(channel, msg, config.queue_name, context).finally(() =>
            pending.delete(task),
          );
          pending.add(task);
        },
        { noAck: false },
      );
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
    context.listening();
    return {
      ended,
      stop: async () => {
        stopping = true;
        await Promise.all(pending);
        await connection.close().catch(() => undefined);
      },
    };
  }

  private async handle(channel: Channel, msg: ConsumeMessage, queue: string, context: ListenerContext) {
    const messageId = msg.properties.messageId as string | undefined;
    try {
      await context.deliver({
        ...(messageId ? { identity: `${queue}:${messageId}` } : {}),
        payload: msg.content,
        info: {
          exchange: msg.fields.exchange,
          routing_key: msg.fields.routingKey,
          queue_name: queue,
          redelivered: msg.fields.redelivered,
          delivery_tag: msg.fields.deliveryTag,
          ...(messageId ? { message_id: messageId } : {}),
          ...(msg.properties.headers && Object.keys(msg.properties.headers).length > 0
            ? { headers: msg.properties.headers }
            : {}),
        },
      });
    } catch (error) {
      this.log.warn(
        `amqp trigger ${context.trigger.path}: a message of ${queue} started no run (${(error as Error).message}); requeued in ${REQUEUE_DELAY_MS} ms`,
      );
      // Held back a little, so a message that cannot start spins no loop; then back to the queue.
      setTimeout(() => {
        try {
          channel.nack(msg, false, true);
        } catch {
          // The channel closed: the broker requeues what was not acknowledged anyway.
        }
      }, REQUEUE_DELAY_MS).unref();
      return;
    }
    try {
      channel.ack(msg);
    } catch {
      // The channel closed after the run was queued: the broker delivers it again, a no-op with a message id.
    }
  }
}

/** `amqp[s]://user:pass@host:port/vhost` from Windmill's AMQP resource (the vhost `/` as `%2F`). */
function urlOf(resource: AmqpResource): string {
  const tls = resource.tls ?? false;
  const port = resource.port ?? (tls ? 5671 : 5672);
  const credentials = resource.username
    ? `${encodeURIComponent(resource.username)}:${encodeURIComponent(resource.password ?? '')}@`
    : '';
  return `${tls ? 'amqps' : 'amqp'}://${credentials}${resource.host}:${port}/${encodeURIComponent(resource.vhost ?? '/')}`;
}
