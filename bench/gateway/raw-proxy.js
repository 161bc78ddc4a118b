// The floor for a proxy on Node: an http server forwarding each request to the fake with
// undici (keep-alive pool) and sending the answer back, nothing else. The benchmark runs it beside
// the gateway so what the gateway adds over plain proxying is visible. An answer with a
// content-length goes back whole in one write with its length (as the gateway and a careful proxy
// do); an event stream is piped chunk by chunk.
import http from 'node:http';
import { Pool } from 'undici';

const upstream = process.argv[2];
const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 60_000 });
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      const answer = await pool.request({
        method: 'POST',
        path: req.url,
        headers: { 'content-type': 'application/json', authorization: req.headers.authorization },
        body: Buffer.concat(chunks),
      });
      const contentType = answer.headers['content-type'];
      if (answer.headers['content-length'] !== undefined) {
        const body = Buffer.from(await answer.body.arrayBuffer());
        res.writeHead(answer.statusCode, { 'content-type': contentType, 'content-length': body.length });
        res.end(body);
        return;
      }
      res.writeHead(answer.statusCode, { 'content-type': contentType });
      for await (const chunk of answer.body) res.write(chunk);
      res.end();
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
