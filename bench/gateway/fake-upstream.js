// A minimal OpenAI-shaped provider for the benchmark, in its own process: a fixed chat completion,
// or a short SSE stream (role, three content deltas, finish, usage, [DONE]) for `"stream":true`.
// It does as little as it can, so what the benchmark sees is what the layer in front adds.
import http from 'node:http';

const created = Math.floor(Date.now() / 1000);
const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I help?', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
});
const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const frames = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Hello' }),
  chunk({ content: '! How can' }),
  chunk({ content: ' I help?' }),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created, model: 'gpt-4o-mini-2024-07-18', choices: [], usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 } })}\n\n`,
  'data: [DONE]\n\n',
];

const server = http.createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (part) => (body += part));
  req.on('end', () => {
    if (!req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    if (body.includes('"stream":true')) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      // The first frame goes out at once (time to first token is measured on it), the rest after.
      res.write(frames[0]);
      setImmediate(() => {
        for (const frame of frames.slice(1)) res.write(frame);
        res.end();
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(completion),
    });
    res.end(completion);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: server.address().port });
});
process.on('disconnect', () => process.exit(0));
