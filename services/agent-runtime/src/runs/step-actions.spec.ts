import type { AgentAction } from '@flowmesh/contracts';
import type { Logger } from '@flowmesh/telemetry';
import { describe, expect, it, vi } from 'vitest';
import { StepActions } from './step-actions.js';

type Client = ConstructorParameters<typeof StepActions>[0];

/** A client whose reports end only when the test says so, in any order. */
function heldClient() {
  const sent: { action: AgentAction; finish: (error?: Error) => void }[] = [];
  const client = {
    reportAction: ({ action }: { action: AgentAction }) =>
      new Promise<{ recorded: boolean }>((resolve, reject) =>
        sent.push({ action, finish: (error) => (error ? reject(error) : resolve({ recorded: true })) }),
      ),
  } as unknown as Client;
  return { client, sent };
}

const message = (content: string): AgentAction => ({ type: 'message', content });
const step = { job_id: '00000000-0000-4000-8000-000000000001', workspace: 'main' };

describe('StepActions', () => {
  it('answers at once, sends one action after the other in order, and is flushed after the last', async () => {
    const { client, sent } = heldClient();
    const logger = { warn: vi.fn() } as unknown as Logger;
    const actions = new StepActions(client, step, logger);
    let flushed = false;

    await actions.report(message('one'), true);
    await actions.report(message('two'), true);
    void actions.flushed().then(() => (flushed = true));
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    // The second is not sent while the first is on its way.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.map((s) => s.action)).toEqual([message('one')]);

    sent[0].finish();
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1].action).toEqual(message('two'));
    expect(flushed).toBe(false);
    sent[1].finish();
    await vi.waitFor(() => expect(flushed).toBe(true));
  });

  it('a report that fails is logged and the next one still goes', async () => {
    const { client, sent } = heldClient();
    const warn = vi.fn();
    const actions = new StepActions(client, step, { warn } as unknown as Logger);

    void actions.report(message('lost'), true);
    void actions.report(message('kept'), true);
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    sent[0].finish(new Error('orchestrator away'));
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    sent[1].finish();
    await actions.flushed();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][1]).toBe('an action of the step could not be reported');
  });
});
