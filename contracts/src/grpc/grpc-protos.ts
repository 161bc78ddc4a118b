import { fileURLToPath } from 'node:url';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import {
  fromProtoStruct,
  fromProtoValue,
  toProtoStruct,
  toProtoValue,
  type ProtoValue,
} from './json-value.js';

/** `contracts/proto`: the include root of flowmesh's .proto files (beside `src/` and `dist/`). */
export const GRPC_PROTO_ROOT = fileURLToPath(new URL('../../proto/', import.meta.url));

/** The files, relative to `GRPC_PROTO_ROOT`. */
export const GRPC_PROTO_FILES = [
  'flowmesh/v1/jobs.proto',
  'flowmesh/v1/items.proto',
  'flowmesh/v1/triggers.proto',
  'flowmesh/v1/budgets.proto',
] as const;

/** The proto package every flowmesh service is in. */
export const GRPC_PACKAGE = 'flowmesh.v1';

/** Full names of the services, as clients and the health service name them. */
export const GRPC_SERVICES = {
  jobs: 'flowmesh.v1.Jobs',
  resources: 'flowmesh.v1.Resources',
  variables: 'flowmesh.v1.Variables',
  schedules: 'flowmesh.v1.Schedules',
  httpTriggers: 'flowmesh.v1.HttpTriggers',
  budgets: 'flowmesh.v1.Budgets',
} as const;

/**
 * How the server and our clients load the protos: field names as written (snake_case, as the zod
 * contracts), 64-bit integers as numbers, unset fields absent (so "not given" stays apart from
 * zero), and the name of the member set in each oneof (`event`).
 */
export const GRPC_LOADER_OPTIONS: Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
  includeDirs: [GRPC_PROTO_ROOT],
};

/** The package definition for `@grpc/grpc-js`'s `loadPackageDefinition` (a client) or a server. */
export function loadGrpcPackageDefinition(): PackageDefinition {
  return loadSync([...GRPC_PROTO_FILES], GRPC_LOADER_OPTIONS);
}

let root: protobuf.Root | undefined;

/** The protos as protobufjs reflection (fields, types, presence): what the JSON mapping walks. */
export function grpcProtoRoot(): protobuf.Root {
  if (!root) {
    const loaded = new protobuf.Root();
    loaded.resolvePath = (_origin, target) =>
      target.startsWith('google/protobuf/') ? target : `${GRPC_PROTO_ROOT}${target}`;
    loaded.loadSync([...GRPC_PROTO_FILES], { keepCase: true });
    loaded.resolveAll();
    root = loaded;
  }
  return root;
}

const STRUCT = '.google.protobuf.Struct';
const VALUE = '.google.protobuf.Value';

/**
 * A message as proto-loader decoded it, as the JSON object the zod contracts parse: Struct and
 * Value fields become plain JSON, unset fields stay absent, oneof names are dropped. proto3 does
 * not tell an empty list from none: a request's (`emptyLists: 'absent'`, the server) is left out,
 * as a filter not given; a reply's (the default, a client) is `[]`, as the contract's reply says.
 */
export function grpcMessageToJson(
  typeName: string,
  message: object,
  emptyLists: 'absent' | 'empty' = 'empty',
): Record<string, unknown> {
  return messageToJson(grpcProtoRoot().lookupType(typeName), message as Record<string, unknown>, emptyLists);
}

/** A JSON object (a contract's reply) as the message `typeName` for proto-loader to encode. */
export function jsonToGrpcMessage(typeName: string, json: object): Record<string, unknown> {
  return jsonToMessage(grpcProtoRoot().lookupType(typeName), json as Record<string, unknown>);
}

function messageToJson(
  type: protobuf.Type,
  message: Record<string, unknown>,
  emptyLists: 'absent' | 'empty',
): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = message[field.name];
    const one = (item: unknown): unknown => fieldToJson(field, item, emptyLists);
    if (field.repeated) {
      const list = Array.isArray(value) ? value : [];
      if (list.length > 0 || emptyLists === 'empty') json[field.name] = list.map(one);
    } else if (value !== undefined && value !== null) json[field.name] = one(value);
  }
  return json;
}

function fieldToJson(field: protobuf.Field, value: unknown, emptyLists: 'absent' | 'empty'): unknown {
  const nested = field.resolvedType;
  if (!(nested instanceof protobuf.Type)) return value;
  if (nested.fullName === STRUCT) return fromProtoStruct(value as never);
  if (nested.fullName === VALUE) return fromProtoValue(value as ProtoValue);
  return messageToJson(nested, value as Record<string, unknown>, emptyLists);
}

function jsonToMessage(type: protobuf.Type, json: Record<string, unknown>): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const value = json[field.name];
    // A JSON null stays a Value's null; any other null field is unset, as absent.
    if (value === undefined || (value === null && field.resolvedType?.fullName !== VALUE)) continue;
    const one = (item: unknown): unknown => fieldToMessage(field, item);
    message[field.name] = field.repeated ? (value as unknown[]).map(one) : one(value);
  }
  return message;
}

function fieldToMessage(field: protobuf.Field, value: unknown): unknown {
  const nested = field.resolvedType;
  if (!(nested instanceof protobuf.Type)) return value;
  if (nested.fullName === STRUCT) return toProtoStruct(value as Record<string, unknown>);
  if (nested.fullName === VALUE) return toProtoValue(value);
  return jsonToMessage(nested, value as Record<string, unknown>);
}
