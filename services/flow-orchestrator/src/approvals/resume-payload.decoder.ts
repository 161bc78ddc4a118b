import { MeshError } from '@flowmesh/contracts';
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
  try {
    return JSON.parse(text) as unknown;
  } catch {
    try {
      return JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    } catch {
      throw new MeshError('VALIDATION_FAILED', 'payload must be JSON, or base64url-encoded JSON');
    }
  }
}

function parseJsonField(name: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new MeshError('VALIDATION_FAILED', `the field "${name}" must be JSON`, { field: name });
  }
}
