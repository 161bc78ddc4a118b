/**
 * JSON Schema -> Gemini's `Schema` (an OpenAPI 3.0 subset). Gemini's proto parser refuses any key
 * it does not know (`additionalProperties`, `$schema`, `const`, ...) with a 400, so a tool or a
 * response schema written for OpenAI must be narrowed: `$ref`s inlined, `["string","null"]` made
 * `nullable`, `const` an enum, `oneOf` an `anyOf`, enums strings, unsupported formats dropped.
 */

type Json = Record<string, unknown>;

const KEPT = [
  'title',
  'description',
  'nullable',
  'maxItems',
  'minItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'default',
  'minimum',
  'maximum',
  'propertyOrdering',
] as const;
const STRING_FORMATS = new Set(['enum', 'date-time']);
const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);
/** `$ref` chains deeper than this (a recursive schema) end as an untyped object. */
const MAX_DEPTH = 12;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function toGeminiSchema(schema: Readonly<Json>): Json {
  const defs = {
    ...(isObject(schema.definitions) ? schema.definitions : {}),
    ...(isObject(schema.$defs) ? schema.$defs : {}),
  };
  return convert(schema, defs, 0);
}

function resolveRef(ref: string, defs: Json): Json | undefined {
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
  const target = name ? defs[decodeURIComponent(name)] : undefined;
  return isObject(target) ? target : undefined;
}

function convert(input: Readonly<Json>, defs: Json, depth: number): Json {
  if (depth > MAX_DEPTH) return { type: 'object' };
  let schema: Json = { ...input };
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, defs);
    const { $ref: _ref, ...siblings } = schema;
    schema = { ...(target ?? { type: 'object' }), ...siblings };
    return convert(schema, defs, depth + 1);
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, defs, depth);
  const out: Json = {};
  for (const key of KEPT) if (schema[key] !== undefined) out[key] = schema[key];

  let type = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((entry) => entry !== 'null');
    if (types.length !== type.length) out.nullable = true;
    if (types.length > 1) {
      out.anyOf = types.map((entry) =>
        convert({ ...schema, type: entry, nullable: undefined }, defs, depth + 1),
      );
      return out;
    }
    type = types[0];
  } else if (type === 'null') {
    out.nullable = true;
    type = undefined;
  }
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options)) {
    const variants = options.filter(isObject);
    const nonNull = variants.filter((variant) => variant.type !== 'null');
    if (nonNull.length !== variants.length) out.nullable = true;
    if (nonNull.length === 1 && nonNull[0]) return { ...convert(nonNull[0], defs, depth + 1), ...out };
    out.anyOf = nonNull.map((variant) => convert(variant, defs, depth + 1));
  }

  const enumValues =
    schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (enumValues) {
    // Gemini takes enums of strings only.
    out.enum = enumValues.filter((value) => value !== null).map(String);
    if (enumValues.includes(null)) out.nullable = true;
    type = 'string';
  }
  if (typeof type === 'string') out.type = type;
  const format = schema.format;
  if (
    typeof format === 'string' &&
    ((type === 'string' && STRING_FORMATS.has(format)) ||
      ((type === 'integer' || type === 'number') && NUMBER_FORMATS.has(format)))
  ) {
    out.format = format;
  }
  if (isObject(schema.properties)) {
    const properties: Json = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = isObject(property) ? convert(property, defs, depth + 1) : {};
    }
    out.properties = properties;
    if (Array.isArray(schema.required))
      out.required = schema.required.filter((name) => typeof name === 'string' && name in properties);
    if (out.type === undefined) out.type = 'object';
  }
  const items: unknown = Array.isArray(schema.items)
    ? (schema.items as unknown[])[0]
    : (schema.items ?? schema.prefixItems);
  const item: unknown = Array.isArray(items) ? (items as unknown[])[0] : items;
  if (isObject(item)) out.items = convert(item, defs, depth + 1);
  else if (out.type === 'array') out.items = { type: 'string' };
  return out;
}

function mergeAllOf(schema: Json, defs: Json, depth: number): Json {
  const { allOf, ...rest } = schema;
  const merged: Json = { ...rest };
  for (const part of (allOf as unknown[]).filter(isObject)) {
    const resolved = typeof part.$ref === 'string' ? (resolveRef(part.$ref, defs) ?? {}) : part;
    if (depth > MAX_DEPTH) break;
    for (const [key, value] of Object.entries(resolved)) {
      if (key === 'properties' && isObject(value))
        merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...value };
      else if (key === 'required' && Array.isArray(value)) {
        merged.required = [
          ...(Array.isArray(merged.required) ? (merged.required as unknown[]) : []),
          ...(value as unknown[]),
        ];
      } else if (merged[key] === undefined) merged[key] = value;
    }
  }
  return merged;
}

/** Function parameters: Gemini refuses an OBJECT with no properties, so a tool without arguments declares none. */
export function toGeminiParameters(schema: Readonly<Json>): Json | undefined {
  const converted = toGeminiSchema(schema);
  if (
    converted.type === 'object' &&
    (!isObject(converted.properties) || Object.keys(converted.properties).length === 0)
  )
    return undefined;
  return converted;
}
