import { describe, expect, it } from 'vitest';
import { fitted, MAX_RESULT_BYTES } from './step-result.js';

describe('fitted', () => {
  it('keeps a result that fits, and leaves out the messages of one that does not, saying so', () => {
    const small = { output: 'ok', messages: [{ role: 'user' }] };
    expect(fitted(small)).toBe(small);
    const big = { output: 'ok', messages: [{ text: 'x'.repeat(MAX_RESULT_BYTES) }, { text: 'y' }] };
    expect(fitted(big)).toEqual({
      output: 'ok',
      messages_omitted: `the 2 messages of the run are larger than ${MAX_RESULT_BYTES} bytes`,
    });
  });
});
