import { loneSurrogateError, MeshError } from '@flowmesh/contracts';
import { formFields } from './approval-page.renderer.js';

/**
 * The approval page's form post (`application/x-www-form-urlencoded`, every value a string) as
 * the payload the resume form's schema describes: numbers as numbers, a checkbox as a boolean,
 * a JSON field parsed. An empty optional field is left out.
 */
export function decodeFormPayload(
  schema: Record<string, unknown> | undefined,
  form: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  for (const field of formFields(schema)) {
    const raw = form[field.name];
    const text =
      typeof raw === 'string' ? raw : Array.isArray(raw) && typeof raw[0] === 'string' ? raw[0] : undefined;
    if (field.type === 'boolean') {
      payload[field.name] = text === 'true' || text === 'on';
      continue;
    }
    if (text === undefined || (text === '' && !field.required)) continue;
    if (field.type === 'number' || field.type === 'integer') {
      payload[field.name] = text.trim() === '' ? text : Number(text);
    } else if (field.type === 'json') {
      payload[field.name] = parseJsonField(field.name, text);
    } else {
      payload[field.name] = text;
    }
  }
  return payload;
}

/** `?payload=` of a GET resume link: JSON, or base64url-encoded JSON as Windmill's clients send it. */
export function decodeQueryPayload(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  let payload: unknown;
  try {
    payload = JSON.parse(text) as unknown;
  } catch {
    try {
      payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    } catch {
      throw new MeshError('VALIDATION_FAILED', 'payload must be JSON, or base64url-encoded JSON');
    }
  }
  return wellFormed('payload', payload);
}

/** `value` unless a string in it holds a lone surrogate, which PostgreSQL would refuse at the write. */
function wellFormed(name: string, value: unknown): unknown {
  const surrogate = loneSurrogateError(name, value, [name]);
  if (surrogate) throw surrogate;
  return value;
}

function parseJsonField(name: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new MeshError('VALIDATION_FAILED', `the field "${name}" must be JSON`, { field: name });
  }
  return wellFormed(name, value);
}
