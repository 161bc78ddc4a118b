import { describe, expect, it } from 'vitest';
import { fimToChatCompletion } from './fim-to-chat.js';

describe('fimToChatCompletion', () => {
  it('puts prefix and suffix around the cursor and keeps the sampling settings', () => {
    const chat = fimToChatCompletion({
      model: 'gpt-4o-mini',
      prompt: 'def fib(a):',
      suffix: 'return fib(a-1)+fib(a-2)',
      max_tokens: 64,
      temperature: 0,
      stop: ['\n\n'],
      stream: true,
    });
    expect(chat).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 64,
      temperature: 0,
      stop: ['\n\n'],
      stream: true,
    });
    const [system, user] = chat.messages as Array<{ role: string; content: string }>;
    expect(system?.role).toBe('system');
    expect(user?.content).toBe(
      '<code_before_cursor>\ndef fib(a):\n</code_before_cursor>\n<code_after_cursor>\nreturn fib(a-1)+fib(a-2)\n</code_after_cursor>',
    );
  });
});
