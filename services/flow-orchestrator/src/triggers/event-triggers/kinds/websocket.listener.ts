import type { NewWebsocketTrigger } from '@flowmesh/contracts';
import { createGuardedLookup, OutboundPolicy, parseAddress } from '@flowmesh/outbound';
import { Inject, Injectable, Logger } from '@nestjs/common';
import WebSocket from 'ws';
import {
  endSignal,
  type EventListener,
  type ListenerContext,
  type RunningListener,
} from '../event-listener.js';
import { InFlight } from './in-flight.js';

/** The outbound policy WebSocket triggers connect under (`FLOWMESH_OUTBOUND_ALLOW_CIDRS`). */
export const WEBSOCKET_OUTBOUND_POLICY = Symbol('WEBSOCKET_OUTBOUND_POLICY');

/** Messages being started at once per trigger. */
const IN_FLIGHT = 64;

/**
 * WebSocket triggers, Windmill's: the mesh connects to `url`, sends the `initial_messages`
 * (`raw_message`s, in order) once connected, and each text message that passes the filters is a
 * run with `{msg}` (the event `{kind: "websocket", msg, url}`). The URL is a user's: it passes
 * the SSRF guard as every outbound call does (loopback, private, link-local and metadata
 * addresses refused unless `FLOWMESH_OUTBOUND_ALLOW_CIDRS` allows them), name and address alike.
 * A WebSocket has no acknowledgement nor redelivery: what the server sends while nobody listens
 * is gone, and nothing is delivered twice.
 */
@Injectable()
export class WebsocketEventListener implements EventListener {
  readonly kind = 'websocket' as const;
  private readonly log = new Logger(WebsocketEventListener.name);
  private readonly lookup;

  constructor(@Inject(WEBSOCKET_OUTBOUND_POLICY) private readonly policy: OutboundPolicy) {
    this.lookup = createGuardedLookup(policy);
  }

  async start(context: ListenerContext): Promise<RunningListener> {
    const config = context.trigger.config as unknown as NewWebsocketTrigger;
    const url = new URL(config.url);
    // An address in the URL is never looked up: it is checked here.
    const host = url.hostname;
    if (parseAddress(host)) this.policy.assertAddress(host, host.replace(/^\[|\]$/g, ''));
    const socket = new WebSocket(config.url, { lookup: this.lookup, handshakeTimeout: 10_000 });
    const { ended, end } = endSignal();
    const inFlight = new InFlight(IN_FLIGHT);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
        socket.once('close', (code) => reject(new Error(`the WebSocket closed before it opened (${code})`)));
      });
    } catch (error) {
      socket.terminate();
      throw error;
    }
    socket.on('error', (error) => end(error));
    socket.on('close', (code, reason) =>
      end(new Error(`the WebSocket closed (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})`)),
    );
    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      void inFlight.add(() =>
        context
          .deliver({ payload: Buffer.from(text), args: { msg: text }, info: { url: config.url } })
          .catch((error: unknown) =>
            this.log.warn(
              `websocket trigger ${context.trigger.path}: a message started no run (${(error as Error).message})`,
            ),
          ),
      );
    });
    for (const message of config.initial_messages ?? []) {
      if ('raw_message' in message) {
        // Windmill sends a JSON string's content, not its quotes.
        const raw = message.raw_message;
        socket.send(raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw);
      }
    }
    context.listening();
    return {
      ended,
      stop: async () => {
        socket.removeAllListeners('message');
        socket.terminate();
        await inFlight.settled();
      },
    };
  }
}
