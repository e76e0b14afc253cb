// Baseline: a bare node:http server answering every request with the service's list response body, byte for byte.
// BODY_FILE holds those bytes (fetched from the running service by the harness); PORT, HOST say where to listen.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BODY_FILE);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };

const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeIdleConnections());
