import { createOrchestratorJobsClient } from '@flowmesh/contracts';
import { waitFor } from '@flowmesh/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptStep, startRunApiMesh, type Member, type RunApiMesh } from './support/run-api-mesh.js';

/** A flow that parks after `request` until approved, then returns what its next step saw. */
function approvalFlow(suspend: Record<string, unknown>) {
  return {
    modules: [
      {
        ...scriptStep('request', "return 'please';"),
        suspend: { required_events: 1, timeout: 600, ...suspend },
      },
      scriptStep('decision', 'return { resume, approvers };', { resume: 'resume', approvers: 'approvers' }),
    ],
  };
}

const form = {
  schema: {
    type: 'object',
    properties: { comment: { type: 'string', description: 'Why' }, amount: { type: 'number' } },
    required: ['comment'],
  },
};

interface ResumeUrls {
  approvalPage: string;
  resume: string;
  cancel: string;
}

// Approvals end to end: the flow parks on a suspend step, the approver answers through a signed
// link (or the page behind it) or as a signed-in user, and the step's rules decide who may.
describe('flow-orchestrator approvals', () => {
  let mesh: RunApiMesh;

  beforeAll(async () => {
    mesh = await startRunApiMesh();
  }, 120_000);

  afterAll(async () => {
    await mesh?.stop();
  });

  const startSuspended = async (value: unknown, as: Member = 'admin') => {
    const started = await mesh.http('POST', 'jobs/run/preview_flow', as, { value, args: {} });
    expect(started.status).toBe(201);
    const id = started.text;
    await waitFor(
      async () => {
        const job = (await mesh.http('GET', `jobs_u/get/${id}`, as)).json<{
          status: string;
          result?: unknown;
        }>();
        if (job.status !== 'running' && job.status !== 'queued' && job.status !== 'suspended') {
          throw new Error(
            `the flow ended (${job.status}: ${JSON.stringify(job.result)}) instead of suspending`,
          );
        }
        return job.status === 'suspended';
      },
      { timeoutMs: 20_000, description: 'the flow to suspend' },
    );
    return id;
  };
  const outcome = (id: string) =>
    waitFor(
      async () => {
        const body = (await mesh.http('GET', `jobs_u/completed/get_result_maybe/${id}`, 'admin')).json<{
          completed: boolean;
          success?: boolean;
          result: unknown;
        }>();
        return body.completed ? body : undefined;
      },
      { timeoutMs: 20_000, description: `job ${id} to complete` },
    );
  /** A signed link, served by this test's orchestrator instead of the public URL. */
  const local = (link: string) => {
    const url = new URL(link);
    return `${mesh.orchestrator.url}${url.pathname}${url.search}`;
  };
  const urlsFor = async (id: string, approver: string) => {
    const answer = await mesh.http(
      'GET',
      `jobs/resume_urls/${id}/7?approver=${encodeURIComponent(approver)}`,
      'admin',
    );
    expect(answer.status).toBe(200);
    return answer.json<ResumeUrls>();
  };
  const post = (link: string, body: unknown, token?: string) =>
    fetch(local(link), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('signs resume links per approver; a tampered link is refused, a payload must fill the form, the next step sees resume and approvers', async () => {
    const id = await startSuspended(approvalFlow({ resume_form: form }));
    const urls = await urlsFor(id, 'carol');
    expect(urls.resume).toMatch(
      new RegExp(
        `^http://127\\.0\\.0\\.1:8000/api/w/main/jobs_u/resume/${id}/7/[0-9a-f]{64}\\?approver=carol$`,
      ),
    );
    expect(urls.cancel).toContain(`/jobs_u/cancel/${id}/7/`);

    const signature = /\/([0-9a-f]{64})\?/.exec(urls.resume)?.[1] ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    for (const tampered of [
      urls.resume.replace(signature, flipped),
      urls.resume.replace('approver=carol', 'approver=mallory'),
      urls.resume.replace(`/7/`, '/8/'),
      urls.resume.replace('/api/w/main/', '/api/w/other/'),
    ]) {
      const refused = await post(tampered, { comment: 'sneaky' });
      expect([tampered, refused.status]).toEqual([tampered, 403]);
    }
    expect((await fetch(local(urls.approvalPage.replace(signature, flipped)))).status).toBe(403);

    const invalid = await post(urls.resume, { amount: 'a lot' });
    expect(invalid.status).toBe(400);
    const refusal = (await invalid.json()) as { code: string; details: { issues: unknown[] } };
    expect(refusal.code).toBe('VALIDATION_FAILED');
    expect(refusal.details.issues).toContainEqual({
      path: '/comment',
      message: "must have required property 'comment'",
    });
    expect((await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).json()).toMatchObject({
      status: 'suspended',
    });

    const approved = await post(urls.resume, { comment: 'ship it', amount: 3 });
    expect([approved.status, await approved.json()]).toEqual([200, { outcome: 'resumed' }]);
    expect(await outcome(id)).toMatchObject({
      success: true,
      result: { resume: { comment: 'ship it', amount: 3 }, approvers: ['carol'] },
    });
    const job = (await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).json<{
      flow_status: { modules: unknown[] };
    }>();
    expect(job.flow_status.modules[0]).toMatchObject({
      id: 'request',
      approvers: [{ resume_id: 7, approver: 'carol' }],
    });
    // Answered: the link has nothing left to answer.
    expect((await post(urls.resume, { comment: 'again' })).status).toBe(404);
  });

  it('takes any JSON value as the payload, as Windmill does: a string by the signed link, a number, an array and null as a user', async () => {
    const bySignedLink = await startSuspended(approvalFlow({}));
    const urls = await urlsFor(bySignedLink, 'carol');
    const approved = await post(urls.resume, 'ship it');
    expect([approved.status, await approved.json()]).toEqual([200, { outcome: 'resumed' }]);
    expect(await outcome(bySignedLink)).toMatchObject({
      success: true,
      result: { resume: 'ship it', approvers: ['carol'] },
    });
    for (const payload of [42, [1, 'two'], null]) {
      const id = await startSuspended(approvalFlow({}));
      const answer = await mesh.http('POST', `jobs/flow/resume/${id}`, 'admin', payload);
      expect([payload, answer.status]).toEqual([payload, 200]);
      expect((await outcome(id)).result).toMatchObject({ resume: payload });
    }
  });

  it('serves an escaped approval page whose form approves with typed fields', async () => {
    const id = await startSuspended(approvalFlow({ resume_form: form }));
    const urls = await urlsFor(id, '<img src=x onerror=alert(1)>');
    const page = await fetch(local(urls.approvalPage));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('name="comment"');
    expect(html).toContain('type="number"');
    expect(html).toContain('Disapprove');
    expect(html).not.toMatch(/<script/i);

    const formPost = await fetch(local(urls.resume), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ comment: 'from the page', amount: '12.5' }).toString(),
    });
    expect(formPost.status).toBe(200);
    expect(formPost.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await formPost.text()).toContain('Approved');
    expect((await outcome(id)).result).toMatchObject({ resume: { comment: 'from the page', amount: 12.5 } });
  });

  it('fails the flow with SuspendedDisapproved when the cancel link is followed', async () => {
    const id = await startSuspended(approvalFlow({}));
    const urls = await urlsFor(id, 'dave');
    const cancel = await fetch(local(urls.cancel));
    expect([cancel.status, await cancel.json()]).toEqual([200, { outcome: 'cancelled' }]);
    const ended = await outcome(id);
    expect(ended.success).toBe(false);
    expect(ended.result).toMatchObject({ error: { name: 'SuspendedDisapproved' } });
  });

  it("disapproves from the page's Disapprove button (a form post to the cancel link)", async () => {
    const id = await startSuspended(approvalFlow({ resume_form: form }));
    const urls = await urlsFor(id, 'frank');
    const posted = await fetch(local(urls.cancel), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ comment: '' }).toString(),
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain('Disapproved');
    expect((await outcome(id)).result).toMatchObject({
      error: { name: 'SuspendedDisapproved', message: expect.stringContaining('frank') as unknown },
    });
  });

  it('with hide_cancel, offers no way to disapprove', async () => {
    const id = await startSuspended(approvalFlow({ hide_cancel: true }));
    const urls = await urlsFor(id, 'erin');
    expect(await (await fetch(local(urls.approvalPage))).text()).not.toContain('Disapprove');
    expect((await fetch(local(urls.cancel))).status).toBe(403);
    expect((await mesh.http('POST', `jobs/flow/resume/${id}?approve=false`, 'admin', {})).status).toBe(403);
    expect((await fetch(local(urls.resume))).status).toBe(200);
    expect((await outcome(id)).success).toBe(true);
  });

  it('with user_auth_required and self_approval_disabled: no anonymous link holder, not the starter, another member yes, recorded as Windmill records', async () => {
    const id = await startSuspended(
      approvalFlow({ user_auth_required: true, self_approval_disabled: true }),
      'alice',
    );
    const urls = await urlsFor(id, 'anyone');
    expect((await post(urls.resume, {})).status).toBe(401);
    const self = await mesh.http('POST', `jobs/flow/resume/${id}`, 'alice', {});
    expect([self.status, self.json<{ message: string }>().message]).toEqual([
      403,
      expect.stringContaining('self-approval'),
    ]);
    // The link with a signed-in user's token: the rules judge that user (the starter may not answer
    // through a link signed for another name), and the name the link was signed for is recorded,
    // as Windmill's resume_suspended_job records it.
    const selfByLink = await post(urls.resume, {}, mesh.tokens.alice);
    expect(selfByLink.status).toBe(403);
    const bob = await post(urls.resume, { ok: true }, mesh.tokens.bob);
    expect([bob.status, await bob.json()]).toEqual([200, { outcome: 'resumed' }]);
    expect((await outcome(id)).result).toMatchObject({ approvers: ['anyone'] });

    // A link signed for no one, with a token: the token's user is recorded.
    const unnamed = await startSuspended(approvalFlow({ user_auth_required: true }), 'alice');
    const links = await mesh.http('GET', `jobs/resume_urls/${unnamed}/7`, 'admin');
    const byBob = await post(links.json<ResumeUrls>().resume, {}, mesh.tokens.bob);
    expect(byBob.status).toBe(200);
    expect((await outcome(unnamed)).result).toMatchObject({ approvers: ['bob'] });
  });

  it('with user_groups_required (static, or an expression over the flow input), only members answer; also over NATS', async () => {
    const jobs = createOrchestratorJobsClient(mesh.registry.client);
    const value = approvalFlow({
      user_auth_required: true,
      user_groups_required: { type: 'javascript', expr: '[flow_input.team]' },
    });
    const started = await mesh.http('POST', 'jobs/run/preview_flow', 'admin', {
      value,
      args: { team: 'approvers' },
    });
    const id = started.text;
    await waitFor(
      async () =>
        (await mesh.http('GET', `jobs_u/get/${id}`, 'admin')).json<{ status: string }>().status ===
        'suspended',
      {
        timeoutMs: 20_000,
      },
    );
    const refused = await jobs
      .resume({ actor: { token: mesh.tokens.bob }, workspace: 'main', id, resume_id: 1 })
      .then(
        () => 'accepted',
        (error: unknown) => (error as { code?: string }).code,
      );
    expect(refused).toBe('PERMISSION_DENIED');
    const accepted = await jobs.resume({
      actor: { token: mesh.tokens.alice },
      workspace: 'main',
      id,
      resume_id: 2,
    });
    expect(accepted.outcome).toBe('resumed');
    expect((await outcome(id)).result).toMatchObject({ approvers: ['alice'] });

    const staticGroups = await startSuspended(
      approvalFlow({
        user_auth_required: true,
        user_groups_required: { type: 'static', value: ['approvers'] },
      }),
    );
    expect((await mesh.http('POST', `jobs/flow/resume/${staticGroups}`, 'bob', {})).status).toBe(403);
    expect((await mesh.http('POST', `jobs/flow/resume/${staticGroups}`, 'alice', {})).json()).toEqual({
      outcome: 'resumed',
    });
  });

  it('answers 404 to an approver of a job that does not wait for an approval', async () => {
    const done = await mesh.http('POST', 'jobs/run_wait_result/preview_flow', 'admin', {
      value: { modules: [scriptStep('a', 'return 1;')] },
      args: {},
    });
    expect(done.status).toBe(200);
    const list = (await mesh.http('GET', 'jobs/list?per_page=1', 'admin')).json<Array<{ id: string }>>();
    const id = list[0]?.id ?? '';
    expect((await mesh.http('POST', `jobs/flow/resume/${id}`, 'admin', {})).status).toBe(404);
    const urls = await urlsFor(id, 'x');
    expect((await fetch(local(urls.resume))).status).toBe(404);
  });
});
