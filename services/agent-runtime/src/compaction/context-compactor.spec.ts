import type { ChatMessage } from '@flowmesh/contracts';
import { assistantCalls, assistantSays, toolResult, userSays } from '@flowmesh/testing';
import { describe, expect, it } from 'vitest';
import { contextBudget } from './context-budget.js';
import { ContextCompactor, MAX_SUMMARY_FAILURES, type Summarize } from './context-compactor.js';

const user = userSays;
const says = assistantSays;
const calls = (id: string) => assistantCalls(id, 'lookup', '{"q":"x"}');
const result = (id: string, text: string) => toolResult(id, text, 'lookup');
const kb = (n: number) => 'x'.repeat(n * 1_000);

/** A 4 000-token window: input budget 3 200, 1 600 retained. */
function compactor(answers: Array<string | undefined>) {
  const requests: Parameters<Summarize>[0][] = [];
  const logs: string[] = [];
  const subject = new ContextCompactor(
    contextBudget(4_000),
    (request) => {
      requests.push(request);
      return Promise.resolve(answers.shift());
    },
    (message) => logs.push(message),
    800,
  );
  return { subject, requests, logs };
}

/** About 3 600 tokens: a prompt with a 2 000-token round, a 1 500-token round, a small last round. */
const longRun = (): ChatMessage[] => [
  user('find it'),
  calls('a'),
  result('a', kb(8)),
  calls('b'),
  result('b', kb(6)),
  calls('c'),
  result('c', 'small'),
];

describe('ContextCompactor', () => {
  it('below the input budget leaves the context alone and asks for nothing', async () => {
    const { subject, requests } = compactor(['never']);
    expect(await subject.beforeRequest([user('hi'), says('hello'), user('again')], {})).toBeUndefined();
    expect(requests).toHaveLength(0);
  });

  it('at the budget summarizes the older prefix as labelled text, keeping the recent exchanges', async () => {
    const { subject, requests, logs } = compactor(['They looked up x twice.']);
    const context = longRun();
    const shorter = await subject.beforeRequest(context, { system: 'be brief' });
    // The prompt with its first round (3 messages) is summarized; round b (1 500 tokens) and
    // round c (small) fit the 1 600 retained.
    expect(shorter).toEqual([
      { role: 'summary', text: 'They looked up x twice.', replacedMessages: 3 },
      ...context.slice(3),
    ]);
    expect(requests[0]?.maxOutputTokens).toBe(800);
    expect(requests[0]?.system).toMatch(/handoff summar/);
    expect(requests[0]?.transcript).toContain('[user]\nfind it');
    expect(requests[0]?.transcript).toContain('[assistant calls tool lookup (a)]\n{"q":"x"}');
    expect(requests[0]?.transcript).toContain('[result of tool lookup (a)]\nxxxx');
    expect(requests[0]?.transcript).not.toContain('be brief');
    expect(logs[0]).toMatch(/3 message\(s\) summarized/);
  });

  it("projects from the provider's measured input plus the messages appended since", async () => {
    const { subject, requests } = compactor(['summary']);
    const context = [user('q'), says(kb(8)), user('q2'), says('a2')];
    subject.recordUsage(3_500, 2);
    expect(subject.projected(context, {})).toBeGreaterThan(3_500);
    const shorter = await subject.beforeRequest(context, {});
    expect(shorter).toHaveLength(3);
    expect(requests).toHaveLength(1);
    // After a rewrite the whole (short) prompt is estimated again, not measured + appended.
    expect(subject.projected(shorter ?? [], {})).toBeLessThan(100);
  });

  it("sends the summarized messages' media with the transcript, and counts them in the projection", async () => {
    const { subject, requests } = compactor(['A photo of a cat, then a lookup.']);
    const photo = { type: 'attachment' as const, object: { key: 'u/ann/cat.png' }, mediaType: 'image/png' };
    const context: ChatMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'what is it?' }, photo] },
      says('a cat'),
      user('look it up'),
      calls('a'),
      result('a', kb(1)),
      says('found'),
    ];
    // Under 1 000 bytes of JSON here, but the photo's allowance (1 600) puts it past half the budget.
    expect(subject.projected(context, {})).toBeGreaterThan(1_600);
    subject.recordUsage(3_100, 2);
    // Measured 3 100 + the appended round (about 330 tokens) reaches the 3 200 input budget.
    const shorter = await subject.beforeRequest(context, {});
    expect(shorter?.[0]).toEqual({
      role: 'summary',
      text: 'A photo of a cat, then a lookup.',
      replacedMessages: 2,
    });
    expect(requests[0]?.attachments).toEqual([photo]);
    expect(requests[0]?.transcript).toContain('[user]\nwhat is it?\n(attachment u/ann/cat.png, image/png)');
  });

  it('an empty, failed or too long summary leaves the context; three failures in a row stop asking', async () => {
    const { subject, requests, logs } = compactor([undefined, '   ', kb(4)]);
    for (let attempt = 0; attempt < MAX_SUMMARY_FAILURES + 1; attempt++)
      expect(await subject.beforeRequest(longRun(), {})).toBeUndefined();
    expect(requests).toHaveLength(MAX_SUMMARY_FAILURES);
    expect(logs.at(-1)).toMatch(/longer than its budget; 3 failures in a row/);
  });

  it('counts failures in a row only: a summary that works starts the count again', async () => {
    const { subject, requests } = compactor([
      undefined,
      undefined,
      'fine',
      undefined,
      undefined,
      'fine again',
    ]);
    const results = [];
    for (let attempt = 0; attempt < 6; attempt++) results.push(await subject.beforeRequest(longRun(), {}));
    expect(results.map((result) => (result ? 'installed' : 'unchanged'))).toEqual([
      'unchanged',
      'unchanged',
      'installed',
      'unchanged',
      'unchanged',
      'installed',
    ]);
    expect(requests).toHaveLength(6);
  });

  it('installs a summary only when it shortens the context and the result fits the input budget', async () => {
    const { subject, requests, logs } = compactor(['s'.repeat(300), 'short']);
    // A 2-message prefix of about 30 tokens: a 75-token summary (within its 800) is no shorter.
    const tiny = [user('q'), says('a'), user('q2'), says('a2')];
    expect(await subject.afterOverflow(tiny, {})).toBeUndefined();
    expect(logs.at(-1)).toMatch(/does not shorten the context/);
    // The newest exchange alone (3 250 tokens) is over the 3 200 budget: the summary cannot help.
    const huge = [user(kb(1)), says('a'), user(kb(13))];
    expect(await subject.afterOverflow(huge, {})).toBeUndefined();
    expect(logs.at(-1)).toMatch(/still exceeds the input budget/);
    expect(requests).toHaveLength(2);
  });

  it('on overflow summarizes every older exchange; the newest is always kept', async () => {
    const { subject } = compactor(['all of it']);
    const context = [user('q'), says('a'), user('q2'), calls('z'), result('z', 'r')];
    expect(await subject.afterOverflow(context, {})).toEqual([
      { role: 'summary', text: 'all of it', replacedMessages: 2 },
      ...context.slice(2),
    ]);
  });

  it('does not summarize a prefix that is only an earlier summary', async () => {
    const { subject, requests } = compactor(['again']);
    const context: ChatMessage[] = [{ role: 'summary', text: 'before', replacedMessages: 9 }, user(kb(20))];
    expect(await subject.afterOverflow(context, {})).toBeUndefined();
    expect(requests).toHaveLength(0);
  });

  it('a memory checkpoint folds an earlier summary into the new one and need not fit the prompt budget', async () => {
    const { subject, requests } = compactor(['newer']);
    const context: ChatMessage[] = [
      { role: 'summary', text: 'before', replacedMessages: 9 },
      user('q'),
      says(kb(2)),
      user(kb(20)),
      says('a'),
    ];
    expect(await subject.checkpoint(context)).toEqual([
      { role: 'summary', text: 'newer', replacedMessages: 11 },
      ...context.slice(3),
    ]);
    expect(requests[0]?.transcript).toMatch(/^\[summary of what came before\]\nbefore/);
  });
});
