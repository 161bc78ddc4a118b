import type { SuspendedApproval } from './suspended-approval.reader.js';

export interface ApprovalPageModel {
  readonly approval: SuspendedApproval;
  readonly approver: string | undefined;
  /** Where the form posts to approve, and to disapprove (absent with hide_cancel). */
  readonly resumeUrl: string;
  readonly cancelUrl: string | undefined;
}

/** A form field for one property of the resume form's schema. */
interface Field {
  readonly name: string;
  readonly type: 'string' | 'number' | 'integer' | 'boolean' | 'json';
  readonly title: string;
  readonly description: string | undefined;
  readonly required: boolean;
  readonly enumValues: readonly string[] | undefined;
  readonly defaultValue: unknown;
}

/**
 * The approval page: plain server-rendered HTML, no script. Every value that reaches the page
 * (step ids, approver names, schema titles and defaults) is escaped; the form posts
 * `application/x-www-form-urlencoded` to the signed resume (or cancel) link.
 */
export function renderApprovalPage(model: ApprovalPageModel): string {
  const { approval } = model;
  const fields = formFields(approval.suspend.resume_form?.schema);
  const remaining = approval.remaining === 1 ? '1 approval is' : `${approval.remaining} approvals are`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Approval requested: ${escapeHtml(approval.stepId)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=text],input[type=number],textarea,select{width:100%;box-sizing:border-box;padding:.4rem}
.hint{color:#666;font-size:.9rem}.actions{margin-top:1.2rem;display:flex;gap:.6rem}
button{padding:.5rem 1.2rem}
</style>
</head>
<body>
<h1>Approval requested</h1>
<p>Flow job <code>${escapeHtml(approval.flowJobId)}</code> waits at step <strong>${escapeHtml(approval.stepId)}</strong>; ${remaining} still needed.</p>
<p class="hint">Started by ${escapeHtml(approval.createdBy)}${model.approver ? `; you answer as <strong>${escapeHtml(model.approver)}</strong>` : ''}.</p>
<form method="post" action="${escapeHtml(model.resumeUrl)}">
${fields.map(renderField).join('\n')}
<div class="actions">
<button type="submit">Approve</button>
${model.cancelUrl === undefined ? '' : `<button type="submit" formaction="${escapeHtml(model.cancelUrl)}" formnovalidate>Disapprove</button>`}
</div>
</form>
</body>
</html>
`;
}

/** The page said once an answer is recorded. */
export function renderAnsweredPage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>
`;
}

export function formFields(schema: Record<string, unknown> | undefined): Field[] {
  const properties = schema?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]) : [];
  return Object.entries(properties as Record<string, unknown>).map(([name, raw]) => {
    const property = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const type = property.type;
    return {
      name,
      type:
        type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'json',
      title: typeof property.title === 'string' ? property.title : name,
      description: typeof property.description === 'string' ? property.description : undefined,
      required: required.includes(name),
      enumValues: Array.isArray(property.enum) ? property.enum.map(String) : undefined,
      defaultValue: property.default,
    };
  });
}

function renderField(field: Field): string {
  const id = `f-${escapeHtml(field.name)}`;
  const name = escapeHtml(field.name);
  const required = field.required && field.type !== 'boolean' ? ' required' : '';
  const label = `<label for="${id}">${escapeHtml(field.title)}${field.required ? ' *' : ''}</label>`;
  const hint = field.description ? `\n<div class="hint">${escapeHtml(field.description)}</div>` : '';
  const initial = initialText(field);
  let input: string;
  if (field.enumValues) {
    const options = field.enumValues
      .map(
        (value) =>
          `<option value="${escapeHtml(value)}"${value === initial ? ' selected' : ''}>${escapeHtml(value)}</option>`,
      )
      .join('');
    input = `<select id="${id}" name="${name}"${required}>${options}</select>`;
  } else if (field.type === 'boolean') {
    input = `<input type="checkbox" id="${id}" name="${name}" value="true"${field.defaultValue === true ? ' checked' : ''}>`;
  } else if (field.type === 'number' || field.type === 'integer') {
    const step = field.type === 'integer' ? '1' : 'any';
    input = `<input type="number" step="${step}" id="${id}" name="${name}" value="${escapeHtml(initial)}"${required}>`;
  } else if (field.type === 'json') {
    input = `<textarea id="${id}" name="${name}" rows="4" placeholder="JSON"${required}>${escapeHtml(initial)}</textarea>`;
  } else {
    input = `<input type="text" id="${id}" name="${name}" value="${escapeHtml(initial)}"${required}>`;
  }
  return `${label}${hint}\n${input}`;
}

/** A field's default as the text its input starts with. */
function initialText(field: Field): string {
  const value = field.defaultValue;
  if (value === undefined || value === null) return '';
  if (field.type === 'json' || typeof value === 'object') return JSON.stringify(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (char) => `&#${char.charCodeAt(0)};`);
}
