import { MeshError, validationError, type Actor } from '@flowmesh/contracts';
import { grpcMessageToJson, grpcProtoRoot, jsonToGrpcMessage } from '@flowmesh/contracts/grpc';
import { requireBearerToken } from '@flowmesh/http';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import type { z } from 'zod';

/** What every served call offers: its metadata, deadline, path and (unary and server streams) request. */
type ServerSurfaceCall = Omit<ServerUnaryCall<object, object>, 'request'>;
type RequestCall = ServerSurfaceCall & { readonly request: object };

/** The call's `authorization: Bearer <token>` as the actor every contract request carries. */
export function actorOf(metadata: Metadata): Actor {
  const values = metadata.get('authorization').map(String);
  return { token: requireBearerToken(values) };
}

/** Milliseconds left before the call's deadline (Infinity without one). */
export function msLeft(call: ServerSurfaceCall): number {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : Number(deadline);
  return Number.isFinite(at) ? at - Date.now() : Infinity;
}

/** `/flowmesh.v1.Jobs/RunFlow` -> the request and reply message names of that method. */
function messagesOf(call: ServerSurfaceCall): { request: string; reply: string } {
  const [, service, method] = /^\/([^/]+)\/([^/]+)$/.exec(call.getPath()) ?? [];
  const rpc = grpcProtoRoot().lookupService(service ?? '').methods[method ?? ''];
  if (!rpc?.resolvedRequestType || !rpc.resolvedResponseType) throw new Error(`no method ${call.getPath()}`);
  return { request: rpc.resolvedRequestType.fullName, reply: rpc.resolvedResponseType.fullName };
}

/**
 * A gRPC request as the contract request it mirrors: its JSON (Struct and Value fields as plain
 * JSON), the caller's token as `actor`, parsed by the same zod schema the NATS handler uses, so a
 * bad field is refused with the same VALIDATION_FAILED naming it. `extra` fills what the gRPC
 * API decides itself (a fresh approval id).
 */
export function contractRequest<S extends z.ZodType>(
  call: RequestCall,
  schema: S,
  extra: Record<string, unknown> = {},
): z.output<S> {
  const actor = actorOf(call.metadata);
  return parseGrpcRequest(call, schema, extra, { actor });
}

/**
 * The request's JSON parsed by `schema`, `defaults` under it and `fixed` over it; a call past
 * its deadline is refused.
 */
export function parseGrpcRequest<S extends z.ZodType>(
  call: RequestCall,
  schema: S,
  defaults: Record<string, unknown> = {},
  fixed: Record<string, unknown> = {},
): z.output<S> {
  if (msLeft(call) <= 0)
    throw new MeshError('TIMEOUT', 'the deadline of the call passed before it was served');
  const json = grpcMessageToJson(messagesOf(call).request, call.request, 'absent');
  const parsed = schema.safeParse({ ...defaults, ...json, ...fixed });
  if (!parsed.success) throw validationError('request', parsed.error);
  return parsed.data;
}

/** A contract reply as the method's reply message. */
export function grpcReply(call: ServerSurfaceCall, reply: object): Record<string, unknown> {
  return jsonToGrpcMessage(messagesOf(call).reply, reply);
}

/** One unary call end to end: the contract request as the caller, the use case, its reply as the proto's. */
export async function serveUnary<S extends z.ZodType>(
  call: RequestCall,
  schema: S,
  useCase: (request: z.output<S>) => Promise<object>,
): Promise<Record<string, unknown>> {
  return grpcReply(call, await useCase(contractRequest(call, schema)));
}
