// Baseline: a bare node:http server that keeps the posted animal in memory and answers 201 with it as JSON, with an
// id from a counter: what a create costs with no database, no key, no validation and no quota. PORT, HOST configure it.
import { createServer } from 'node:http';

let nextId = 1;

function send(res, status, payload) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const server = createServer({ keepAliveTimeout: 5_000 }, async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const pet = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    send(res, 201, JSON.stringify({ id: nextId++, name: pet.name, categoryId: pet.categoryId, status: pet.status ?? 'available' }));
  } catch (error) {
    send(res, 400, JSON.stringify({ code: 'invalid_json', message: String(error.message), status: 400 }));
  }
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeIdleConnections());
