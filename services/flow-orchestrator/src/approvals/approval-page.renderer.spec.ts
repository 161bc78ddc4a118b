import { describe, expect, it } from 'vitest';
import type { SuspendedApproval } from './suspended-approval.reader.js';
import { escapeHtml, renderApprovalPage } from './approval-page.renderer.js';

const approval: SuspendedApproval = {
  flowJobId: 'f1',
  stepId: 'ask"<b>',
  stepJobId: undefined,
  suspend: {
    required_events: 2,
    resume_form: {
      schema: {
        properties: {
          comment: { type: 'string', description: '<i>why</i>', default: '"quoted"' },
          level: { type: 'string', enum: ['low', 'high'], default: 'high' },
          urgent: { type: 'boolean', default: true },
          tags: { type: 'array', default: ['a'] },
        },
        required: ['comment'],
      },
    },
  },
  createdBy: '<alice>',
  email: '',
  remaining: 2,
  context: {},
};

describe('renderApprovalPage', () => {
  const html = renderApprovalPage({
    approval,
    approver: "o'neil",
    resumeUrl: '/api/w/main/jobs_u/resume/f1/1/sig?approver=a&b',
    cancelUrl: '/api/w/main/jobs_u/cancel/f1/1/sig',
  });

  it('escapes every value it shows', () => {
    expect(html).toContain('ask&#34;&#60;b&#62;');
    expect(html).toContain('&#60;alice&#62;');
    expect(html).toContain('o&#39;neil');
    expect(html).toContain('&#60;i&#62;why&#60;/i&#62;');
    expect(html).toContain('value="&#34;quoted&#34;"');
    expect(html).toContain('action="/api/w/main/jobs_u/resume/f1/1/sig?approver=a&#38;b"');
    expect(html).not.toMatch(/<script|<b>|<i>/);
  });

  it('renders one field per form property, typed, and both actions', () => {
    expect(html).toContain(
      '<input type="text" id="f-comment" name="comment" value="&#34;quoted&#34;" required>',
    );
    expect(html).toContain('<option value="high" selected>high</option>');
    expect(html).toContain('<input type="checkbox" id="f-urgent" name="urgent" value="true" checked>');
    expect(html).toContain('placeholder="JSON">[&#34;a&#34;]</textarea>');
    expect(html).toContain('2 approvals are still needed');
    expect(html).toContain('formaction="/api/w/main/jobs_u/cancel/f1/1/sig"');
  });

  it('offers no disapprove button without a cancel link', () => {
    const hidden = renderApprovalPage({
      approval,
      approver: undefined,
      resumeUrl: '/r',
      cancelUrl: undefined,
    });
    expect(hidden).not.toContain('Disapprove');
  });
});

describe('escapeHtml', () => {
  it('escapes the characters that can leave a text or attribute context', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\``)).toBe(
      '&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;',
    );
  });
});
