/**
 * JSON values as google.protobuf.Value / Struct, in the object shape `@grpc/proto-loader` reads
 * and writes (`{ fields: { name: { stringValue: 'x' } } }`). Arguments, results and flow values
 * are JSON in the contracts: these two functions are the only place they change shape.
 */
export type ProtoValue =
  | { nullValue: 'NULL_VALUE' | 0 }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: ProtoStruct }
  | { listValue: { values?: ProtoValue[] } };
export interface ProtoStruct {
  fields?: Record<string, ProtoValue>;
}

export function toProtoValue(value: unknown): ProtoValue {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toProtoValue) } };
  if (typeof value === 'object') return { structValue: toProtoStruct(value as Record<string, unknown>) };
  // bigint, function, symbol: not JSON; written as JSON.stringify would (a string or null)
  return typeof value === 'bigint' ? { stringValue: value.toString() } : { nullValue: 'NULL_VALUE' };
}

export function toProtoStruct(object: Record<string, unknown>): ProtoStruct {
  const fields: Record<string, ProtoValue> = {};
  for (const [key, value] of Object.entries(object))
    if (value !== undefined) fields[key] = toProtoValue(value);
  return { fields };
}

export function fromProtoValue(value: ProtoValue | null | undefined): unknown {
  if (value === null || value === undefined) return null;
  if ('numberValue' in value && value.numberValue !== undefined) return value.numberValue;
  if ('stringValue' in value && value.stringValue !== undefined) return value.stringValue;
  if ('boolValue' in value && value.boolValue !== undefined) return value.boolValue;
  if ('structValue' in value && value.structValue) return fromProtoStruct(value.structValue);
  if ('listValue' in value && value.listValue) return (value.listValue.values ?? []).map(fromProtoValue);
  return null;
}

export function fromProtoStruct(struct: ProtoStruct | null | undefined): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) object[key] = fromProtoValue(value);
  return object;
}
