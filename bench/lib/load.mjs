// The load generator, run as its own process: `node bench/lib/load.mjs`. It prints "ready", then for each JSON line
// on stdin ({ url, method, headers, body, connections, duration }) runs autocannon and prints one JSON line with
// the result. Latencies are kept per response (fractional ms) so p50/p99 are exact rather than whole milliseconds.
import autocannon from 'autocannon';
import { createInterface } from 'node:readline';
import { cursorPaths } from './cursor.mjs';
import { percentile } from './stats.mjs';

async function run(options) {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  // With `cursorCycle`, each request asks for the next of a cycle of different pages (no page repeats soon).
  const paths = options.cursorCycle ? cursorPaths({ path: options.path, ...options.cursorCycle }) : undefined;
  let next = 0;
  const instance = autocannon({
    url: options.url,
    ...(paths ? { requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }] } : {}),
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    body: options.body,
    connections: options.connections,
    pipelining: 1,
    duration: options.duration,
    timeout: 10,
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode < 200 || statusCode > 299) return;
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    durationS: result.duration,
    completed,
    ok: result['2xx'],
    non2xx: result.non2xx,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    errors: result.errors,
    timeouts: result.timeouts,
    rps: completed / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    bytesPerResponse: completed ? result.throughput.total / completed : undefined,
  };
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  try {
    process.stdout.write(`${JSON.stringify(await run(JSON.parse(line)))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error?.stack ?? error) })}\n`);
  }
}
