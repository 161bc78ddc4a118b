import {
  decodeGrpcStatusDetails,
  GRPC_STATUS_DETAILS_KEY,
  type DecodedGrpcStatus,
  GRPC_STATUS,
  GRPC_ERROR_CODE_KEY,
  GRPC_ERROR_ENVELOPE_KEY,
  grpcMessageToJson,
  grpcProtoRoot,
  jsonToGrpcMessage,
  loadGrpcPackageDefinition,
} from '@flowmesh/contracts/grpc';
import {
  credentials,
  loadPackageDefinition,
  Metadata,
  type Client,
  type ClientReadableStream,
  type ServiceError,
} from '@grpc/grpc-js';

type Service = 'Jobs' | 'Resources' | 'Variables' | 'Budgets';

/** A failed call as the test sees it: status, message, and the mesh error from trailing metadata. */
export interface GrpcFailure {
  readonly code: number;
  readonly details: string;
  readonly meshCode: string | undefined;
  readonly envelope: { code: string; message: string; details?: unknown } | undefined;
  /** The standard `google.rpc.Status` trailer, decoded. */
  readonly status: DecodedGrpcStatus | undefined;
}

export function failureOf(error: unknown): GrpcFailure {
  const failure = error as ServiceError;
  const envelope = failure.metadata?.get(GRPC_ERROR_ENVELOPE_KEY)[0];
  const status = failure.metadata?.get(GRPC_STATUS_DETAILS_KEY)[0];
  return {
    code: failure.code,
    details: failure.details,
    meshCode: failure.metadata?.get(GRPC_ERROR_CODE_KEY)[0]?.toString(),
    envelope:
      envelope === undefined ? undefined : (JSON.parse(envelope.toString()) as GrpcFailure['envelope']),
    status: status === undefined ? undefined : decodeGrpcStatusDetails(status as Buffer),
  };
}

/**
 * flowmesh's gRPC API through `@grpc/grpc-js`, as any Node client would load it from the protos,
 * JSON in and out (Struct and Value fields mapped by the contracts' helpers): the client of the
 * gRPC tests, at the address the orchestrator reports (`TestService.extraAddress`).
 */
export class FlowmeshGrpcClient {
  private readonly clients: Record<Service, Client & Record<string, unknown>>;

  constructor(readonly address: string) {
    const loaded = loadPackageDefinition(loadGrpcPackageDefinition()) as unknown as {
      flowmesh: { v1: Record<Service, new (address: string, creds: unknown) => Client> };
    };
    const make = (service: Service) =>
      new loaded.flowmesh.v1[service](address, credentials.createInsecure()) as Client &
        Record<string, unknown>;
    this.clients = {
      Jobs: make('Jobs'),
      Resources: make('Resources'),
      Variables: make('Variables'),
      Budgets: make('Budgets'),
    };
  }

  /** One unary call; `token` undefined sends no authorization; `deadlineMs` from now. */
  call<T = Record<string, unknown>>(
    service: Service,
    method: string,
    request: Record<string, unknown>,
    token: string | undefined,
    deadlineMs = 30_000,
  ): Promise<T> {
    const rpc = grpcProtoRoot().lookupService(`flowmesh.v1.${service}`).methods[method];
    const client = this.clients[service];
    const fn = client[method] as (...args: unknown[]) => unknown;
    return new Promise<T>((resolve, reject) =>
      fn.call(
        client,
        jsonToGrpcMessage(rpc.resolvedRequestType!.fullName, request),
        metadataOf(token),
        { deadline: Date.now() + deadlineMs },
        (error: ServiceError | null, reply: object) =>
          error ? reject(error) : resolve(grpcMessageToJson(rpc.resolvedResponseType!.fullName, reply) as T),
      ),
    );
  }

  /** `Jobs/WatchJob` as a stream of JSON events (`JobEvent`, with `event` naming the member set). */
  watch(request: Record<string, unknown>, token: string, deadlineMs = 60_000): ClientReadableStream<object> {
    const fn = this.clients.Jobs['WatchJob'] as (...args: unknown[]) => ClientReadableStream<object>;
    return fn.call(
      this.clients.Jobs,
      jsonToGrpcMessage('flowmesh.v1.WatchJobRequest', request),
      metadataOf(token),
      {
        deadline: Date.now() + deadlineMs,
      },
    );
  }

  close(): void {
    for (const client of Object.values(this.clients)) client.close();
  }
}

function metadataOf(token: string | undefined): Metadata {
  const metadata = new Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** A `JobEvent` as JSON: its offset and the one event it holds. */
export interface WatchEvent {
  offset: string;
  kind: 'step_started' | 'step_finished' | 'agent' | 'end';
  body: Record<string, unknown>;
}

export function watchEventOf(message: object): WatchEvent {
  const json = grpcMessageToJson('flowmesh.v1.JobEvent', message);
  const kind = (['step_started', 'step_finished', 'agent', 'end'] as const).find(
    (name) => json[name] !== undefined,
  )!;
  return { offset: json.offset as string, kind, body: json[kind] as Record<string, unknown> };
}

/**
 * Reads `Jobs/WatchJob` until it ends, or until `stopAfter(events)` says so (then disconnects,
 * as a client that goes away): the events received, in order.
 */
export function readWatch(
  grpc: FlowmeshGrpcClient,
  request: Record<string, unknown>,
  token: string,
  stopAfter: (events: readonly WatchEvent[]) => boolean = () => false,
): Promise<WatchEvent[]> {
  return new Promise<WatchEvent[]>((resolve, reject) => {
    const events: WatchEvent[] = [];
    const stream = grpc.watch(request, token);
    stream.on('data', (message: object) => {
      events.push(watchEventOf(message));
      if (stopAfter(events)) {
        stream.cancel();
        resolve(events);
      }
    });
    stream.on('end', () => resolve(events));
    stream.on('error', (error: Error) =>
      failureOf(error).code === GRPC_STATUS.CANCELLED ? resolve(events) : reject(error),
    );
  });
}
