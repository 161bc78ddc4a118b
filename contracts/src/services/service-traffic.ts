import { ITEM_KINDS } from '../registry/events.contract.js';
import type { StreamKey } from '../messaging/streams.js';
import { chatCancelSignalSubject, imageCancelSignalSubject } from '../gateway/gateway.contract.js';
import { tokenStreamSubject } from '../messaging/contract.js';
import { stepStreamSubject } from '../orchestrator/agent-stream.schema.js';
import type { ServiceName } from './service-names.js';

/**
 * What each service sends and hears on NATS, besides answering its own requests
 * (`<subjectRoot>.>`). Each service's NATS permissions are derived from this table
 * (`natsPermissions`), and `service-traffic.spec.ts` checks it against the services' sources, so
 * a new `create*Client` call or event listener fails the spec until the table says so.
 */
export interface ServiceTraffic {
  /** Services whose requests it sends (`create<Service>Client`, `gatewayChat`, a contract's `request`). */
  readonly calls: readonly ServiceName[];
  /** Event domains it publishes (`evt.<domain>.*`), through its outbox or directly. */
  readonly emits: readonly string[];
  /** Event domains it hears, with a durable consumer, an ordered consumer or a core subscription. */
  readonly hears: readonly string[];
  /** Enqueues work (`work.<tag>.<kind>`). */
  readonly enqueuesWork: boolean;
  /** Takes work from the work queue (its worker role). */
  readonly consumesWork: boolean;
  /** Streams whose messages it reads besides events and work (ordered consumers, direct gets). */
  readonly reads: readonly StreamKey[];
  /** Core-NATS subjects outside the above it publishes to (relative; patterns). */
  readonly publishes: readonly string[];
  /** The same for subscriptions. */
  readonly subscribes: readonly string[];
}

const NONE = { calls: [], emits: [], hears: [], enqueuesWork: false, consumesWork: false, reads: [] };
const SIGNALS_NONE = { publishes: [], subscribes: [] };

/** `*` standing for one id in a subject built by a contract function. */
const ANY = '*';

export const SERVICE_TRAFFIC: Readonly<Record<ServiceName, ServiceTraffic>> = {
  'flow-orchestrator': {
    ...NONE,
    // llm-gateway: gRPC's Budgets service forwards to `gateway.budget.*`.
    calls: ['agent-runtime', 'dependency-locker', 'llm-gateway', 'memory-service', 'resource-registry'],
    emits: ['job'],
    // evt.job.*: its own completions and cancels, heard by waiting HTTP calls and replicas.
    hears: ['job', 'identity'],
    enqueuesWork: true,
    consumesWork: true,
    // `GET jobs_u/stream/{id}` replays what a run's AI steps said.
    reads: ['runStreams'],
    ...SIGNALS_NONE,
  },
  'agent-runtime': {
    ...NONE,
    calls: ['flow-orchestrator', 'llm-gateway', 'memory-service', 'resource-registry'],
    hears: ['job'],
    reads: ['runStreams'],
    // Publishes what a streaming step says (kept by the runStreams stream, no ack awaited);
    // hears the gateway's token stream of the chats it starts.
    publishes: [stepStreamSubject(ANY, ANY)],
    subscribes: [tokenStreamSubject(ANY)],
  },
  'llm-gateway': {
    ...NONE,
    calls: ['resource-registry'],
    hears: ['resource', 'variable', 'identity'],
    // Token streams to its callers; cancel signals between its own replicas (image cancel
    // signals sit under its own root, which it subscribes to anyway).
    publishes: [tokenStreamSubject(ANY), chatCancelSignalSubject(ANY), imageCancelSignalSubject(ANY)],
    subscribes: [chatCancelSignalSubject(ANY)],
  },
  'memory-service': { ...NONE, calls: ['resource-registry'], ...SIGNALS_NONE },
  'resource-registry': {
    ...NONE,
    // deploy: what dependency-locker locks (scripts, flows, ai_agent resources as deployed).
    emits: [...ITEM_KINDS, 'identity', 'deploy'],
    // Its caches follow its own events, so every replica drops what another changed.
    hears: ['resource', 'variable', 'identity'],
    ...SIGNALS_NONE,
  },
  'dependency-locker': {
    ...NONE,
    // Writes locks back (`registry.lock.write`), has agents' script tools checked
    // (`registry.lock.revalidate_agent_tools`), flows' tool_inputs overrides checked
    // (`registry.lock.revalidate_flow_tool_inputs`) and deploys announced again for a map rebuild
    // (`registry.lock.announce_deploys`), and checks who may read a lock's status or rebuild.
    calls: ['resource-registry'],
    emits: ['lock'],
    hears: ['deploy'],
    ...SIGNALS_NONE,
  },
};
