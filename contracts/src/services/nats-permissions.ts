import { STREAMS, type StreamKey } from '../messaging/streams.js';
import { SubjectSpace } from '../messaging/subject-prefix.js';
import { lockerContract } from '../locker/locker.contract.js';
import { registryIdentityContract } from '../registry/identity.contract.js';
import { MESH_PROCESSES, workerPingContract, type MeshProcess } from './mesh-processes.js';
import { pingContract } from './ping.contract.js';
import { SERVICES } from './service-names.js';
import { SERVICE_TRAFFIC } from './service-traffic.js';

/**
 * What one NATS user may do, in nats-server's own shape (`authorization.users[].permissions`).
 * Everything not allowed is refused: a publish is dropped with a permissions violation, a
 * subscription is refused.
 */
export interface NatsPermissions {
  readonly publish: { readonly allow: readonly string[] };
  readonly subscribe: { readonly allow: readonly string[] };
  /** May publish to the reply subject of a request it received (once, for a while). */
  readonly allow_responses: boolean;
}

/** The NATS user of the flowmesh CLI (`status`, `admin init`, `admin rebuild-depmap`, and `flowmesh start`'s own checks). */
export const MESH_OPERATOR_USER = 'flowmesh-cli';

/**
 * Where a connection receives its replies: its own inbox prefix, so one user's permission to
 * read its replies is no permission to read another's (`_INBOX.fm.resource-registry.<id>`).
 */
export function meshInboxPrefix(prefix: string, connectionName: string): string {
  return `_INBOX.${new SubjectSpace(prefix).prefix}.${connectionName.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
}

/**
 * The permissions of one mesh process, derived from `SERVICE_TRAFFIC`: it subscribes to its own
 * requests, the events it hears and its inbox; publishes requests to the services it calls, the
 * events it emits, the work it enqueues; and uses JetStream's API only on the streams it needs.
 * A worker sends what its service sends (it is the same code), with its own user and inbox.
 */
export function processNatsPermissions(process: MeshProcess, prefix: string): NatsPermissions {
  const space = new SubjectSpace(prefix);
  const traffic = SERVICE_TRAFFIC[process.service];
  const consumed: StreamKey[] = [
    ...(traffic.hears.length > 0 ? (['events'] as const) : []),
    ...(traffic.consumesWork ? (['work'] as const) : []),
    ...traffic.reads,
  ];
  const takesFromJetStream = traffic.hears.length > 0 || traffic.consumesWork;
  const publish = [
    ...traffic.calls.map((service) => space.subject(`${SERVICES[service].subjectRoot}.>`)),
    ...traffic.emits.map((domain) => space.subject(`evt.${domain}.>`)),
    ...(traffic.enqueuesWork ? [space.subject('work.>')] : []),
    // A message that exhausted its deliveries is recorded in the dead-letter stream.
    ...(takesFromJetStream ? [space.subject('dlq.>')] : []),
    ...traffic.publishes.map((subject) => space.subject(subject)),
    ...jetStreamManagement(space),
    ...consumed.flatMap((key) => jetStreamConsumption(space.streamName(STREAMS[key].name))),
  ];
  const root = SERVICES[process.service].subjectRoot;
  const subscribe = [
    // A worker answers only its own ping: the service's requests (job tokens among them) are
    // not for the process that runs user code.
    space.subject(process.role === 'worker' ? `${root}.worker.>` : `${root}.>`),
    ...traffic.hears.map((domain) => space.subject(`evt.${domain}.>`)),
    ...traffic.subscribes.map((subject) => space.subject(subject)),
    `${meshInboxPrefix(prefix, process.name)}.>`,
  ];
  return {
    publish: { allow: unique(publish) },
    subscribe: { allow: unique(subscribe) },
    allow_responses: true,
  };
}

/**
 * The CLI asks every process for its health, the registry for the first admin, and the locker to
 * rebuild a workspace's map (the caller's admin token decides); nothing else.
 */
export function operatorNatsPermissions(prefix: string): NatsPermissions {
  const space = new SubjectSpace(prefix);
  const pings = MESH_PROCESSES.map((p) =>
    p.role === 'worker' ? workerPingContract(p.service).subject : pingContract(p.service).subject,
  );
  return {
    publish: {
      // `$JS.API.INFO`: connecting checks that the server has JetStream (account figures only).
      allow: unique([
        ...[...pings, registryIdentityContract.adminInit.subject, lockerContract.rebuildDepmap.subject].map(
          (s) => space.subject(s),
        ),
        '$JS.API.INFO',
      ]),
    },
    subscribe: { allow: [`${meshInboxPrefix(prefix, MESH_OPERATOR_USER)}.>`] },
    allow_responses: false,
  };
}

/** Every user a mesh needs: one per process, and the CLI's. */
export function meshNatsUsers(prefix: string): Array<{ user: string; permissions: NatsPermissions }> {
  return [
    ...MESH_PROCESSES.map((p) => ({ user: p.name, permissions: processNatsPermissions(p, prefix) })),
    { user: MESH_OPERATOR_USER, permissions: operatorNatsPermissions(prefix) },
  ];
}

/**
 * Every service creates or updates every stream at start (`ensureStreams`), so each may look at
 * and configure all of them; it may not delete or purge one, nor read messages from it.
 * `STREAM.LIST` only serves the explanation of a stream that does not fit the server's storage.
 */
function jetStreamManagement(space: SubjectSpace): string[] {
  const streams = Object.values(STREAMS).map((def) => space.streamName(def.name));
  return [
    '$JS.API.INFO',
    '$JS.API.STREAM.LIST',
    ...streams.flatMap((stream) =>
      ['INFO', 'CREATE', 'UPDATE'].map((op) => `$JS.API.STREAM.${op}.${stream}`),
    ),
  ];
}

/**
 * Reading one stream: its consumers (durable and ordered: create, look up, delete, pull),
 * direct and stored-message gets, and acks. Per stream, not per consumer: a service that may
 * consume a stream may read every subject in it.
 */
function jetStreamConsumption(stream: string): string[] {
  return [
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.>`,
    `$JS.API.CONSUMER.DELETE.${stream}.>`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.ACK.${stream}.>`,
  ];
}

function unique(subjects: readonly string[]): string[] {
  return [...new Set(subjects)];
}
