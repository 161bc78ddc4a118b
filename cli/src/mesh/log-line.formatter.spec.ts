import { describe, expect, it } from 'vitest';
import { createLogFormatter } from './log-line.formatter.js';

const names = ['llm-gateway', 'flow-orchestrator-worker'];

describe('createLogFormatter', () => {
  it('prefixes each line with its process, aligned, and renders JSON logs compactly', () => {
    const format = createLogFormatter(names, { format: 'pretty', color: false });
    const line = JSON.stringify({
      level: 'warn',
      time: '2026-11-30T10:00:01.250Z',
      service: 'llm-gateway',
      pid: 1,
      hostname: 'h',
      msg: 'provider slow',
      provider: 'openai',
      latency: { ms: 812 },
    });
    expect(format('llm-gateway', line)).toBe(
      '[llm-gateway]              10:00:01.250 WARN  provider slow provider=openai latency={"ms":812}',
    );
  });

  it('shows lines that are not JSON log records as they came', () => {
    const format = createLogFormatter(names, { format: 'pretty', color: false });
    expect(format('flow-orchestrator-worker', '    at main (file.js:1:1)')).toBe(
      '[flow-orchestrator-worker] ' + '    at main (file.js:1:1)',
    );
    expect(format('llm-gateway', '{"not":"a log"}')).toBe('[llm-gateway]              {"not":"a log"}');
  });

  it('passes lines through untouched in json mode', () => {
    const format = createLogFormatter(names, { format: 'json', color: false });
    expect(format('llm-gateway', '{"level":"info","msg":"x"}')).toBe('{"level":"info","msg":"x"}');
  });

  it('colours the prefix and the level only when asked', () => {
    const format = createLogFormatter(names, { format: 'pretty', color: true });
    const out = format('llm-gateway', JSON.stringify({ level: 'error', time: 0, msg: 'bad' }));
    expect(out).toContain('\u001b[31mERROR\u001b[0m');
    expect(out.startsWith('\u001b[36m[llm-gateway]')).toBe(true);
  });
});
