// Not a baseline: the receiver of the webhook row. A bare node:http server that reads each delivery and answers 204,
// as a receiver that queues the event and acknowledges at once would; a GET answers how many it has taken. PORT,
// HOST configure it; on SIGTERM it prints the count.
import { createServer } from 'node:http';

let received = 0;
const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  // GET: how many deliveries it has taken so far (the bench waits for a run's deliveries with it).
  if (req.method === 'GET') {
    res.end(String(received));
    return;
  }
  req.resume();
  req.once('end', () => {
    received += 1;
    res.writeHead(204);
    res.end();
  });
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  console.log(`received ${received} deliveries`);
  server.close(() => process.exit(0)).closeIdleConnections();
});
