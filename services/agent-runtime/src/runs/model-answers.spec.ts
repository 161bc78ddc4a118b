import type { ChatCompletedEvent, ChatFinalEvent } from '@flowmesh/contracts';
import { describe, expect, it } from 'vitest';
import { ModelAnswers } from './model-answers.js';

const JOB = '0b6c3d51-2f0e-4a57-9d3c-0f4f8c1d2e3a';

const answer = (text: string): ChatCompletedEvent => ({
  type: 'message',
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  finishReason: 'stop',
  provider: 'openai',
  model: 'gpt-4o-mini',
});

/** A store in memory, as the step's row would keep it. */
function store(known: Record<string, ChatCompletedEvent> = {}) {
  const kept: Record<string, ChatCompletedEvent> = { ...known };
  return {
    kept,
    known,
    keep: (key: string, event: ChatCompletedEvent) => {
      kept[key] ??= event;
      return Promise.resolve();
    },
  };
}

describe('ModelAnswers', () => {
  it('asks the model once per call and keeps the answer; a run after a crash reuses it', async () => {
    const first = store();
    const asked: string[] = [];
    const ask = (text: string) => (key: string) => {
      asked.push(key);
      return Promise.resolve<ChatFinalEvent>(answer(text));
    };
    const run = new ModelAnswers(JOB, first);
    await run.answer({ messages: ['hi'] }, ask('one'));
    await run.answer({ messages: ['hi', 'one', 'more'] }, ask('two'));
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatch(new RegExp(`^${JOB}:[0-9a-f]{32}\\.0$`));

    // The replica died; another runs the step again from its start with what the row kept.
    const again = new ModelAnswers(JOB, store(first.kept));
    const reasked: string[] = [];
    const replay = (text: string) => (key: string) => {
      reasked.push(key);
      return Promise.resolve<ChatFinalEvent>(answer(text));
    };
    expect(await again.answer({ messages: ['hi'] }, replay('changed'))).toEqual(answer('one'));
    expect(await again.answer({ messages: ['hi', 'one', 'more'] }, replay('changed'))).toEqual(answer('two'));
    // The call in flight at the crash is asked, under the key it had.
    await again.answer({ messages: ['hi', 'one', 'more', 'two'] }, replay('three'));
    expect(reasked).toHaveLength(1);
    expect(again.reused).toBe(2);
  });

  it('keys a request by its content whatever the order of its fields (rows store JSON as jsonb)', async () => {
    const first = store();
    await new ModelAnswers(JOB, first).answer({ a: 1, b: { c: 2, d: 3 } }, () =>
      Promise.resolve(answer('x')),
    );
    const again = new ModelAnswers(JOB, store(first.kept));
    let asked = false;
    await again.answer({ b: { d: 3, c: 2 }, a: 1 }, () => {
      asked = true;
      return Promise.resolve(answer('y'));
    });
    expect(asked).toBe(false);
  });

  it('tells the same request asked twice apart, and keeps no failed call', async () => {
    const kept = store();
    const run = new ModelAnswers(JOB, kept);
    const keys: string[] = [];
    const failing = (key: string): Promise<ChatFinalEvent> => {
      keys.push(key);
      return Promise.resolve({ type: 'error', error: { class: 'provider_outage', message: 'down' } });
    };
    await run.answer({ same: true }, failing);
    await run.answer({ same: true }, (key) => {
      keys.push(key);
      return Promise.resolve(answer('ok'));
    });
    expect(keys[0]).not.toBe(keys[1]);
    expect(Object.keys(kept.kept)).toEqual([keys[1]?.slice(JOB.length + 1)]);
  });
});
