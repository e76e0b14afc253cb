// The load generator, run as its own process: `node bench/lib/load.mjs`. It prints "ready", then for each JSON line
// on stdin ({ url, method, headers, body, connections, duration }) runs autocannon and prints one JSON line with
// the result. Latencies are kept per response (fractional ms) so p50/p99 are exact rather than whole milliseconds.
// With `mix` ({ every, request: { path, method, headers, body } }) each connection sends `mix.request` as every
// `every`-th request and the main one otherwise; the result then has p50/p99 for each kind (`byKind.main`,
// `byKind.mixed`).
import autocannon from 'autocannon';
import { createInterface } from 'node:readline';
import { cursorPaths } from './cursor.mjs';
import { percentile } from './stats.mjs';

/** Response times, grown as needed; `summary()` gives their count, p50 and p99. */
function latencyLog() {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  return {
    add(ms) {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = ms;
    },
    sorted: () => latencies.subarray(0, count).sort(),
    summary() {
      const sorted = this.sorted();
      return { count, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
    },
  };
}

/** Where each numbered cycle stands, across the runs of this process. */
const cycled = new Map();

async function run(options) {
  const all = latencyLog();
  const byKind = options.mix ? { main: latencyLog(), mixed: latencyLog() } : undefined;
  // Per connection, how many responses it has had: with pipelining 1 they come back in the order sent.
  const sent = new Map();
  // With `cursorCycle`, each request asks for the next of a cycle of different pages (no page repeats soon).
  const paths = options.cursorCycle ? cursorPaths({ path: options.path, ...options.cursorCycle }) : undefined;
  let next = 0;
  const mixed = options.mix && { method: 'GET', ...options.mix.request };
  // With `cycle`, each request puts the next number of `from`…`from + count - 1` for `{n}` in its path and body (a
  // fresh pet for each order, a different pet for each change), carrying on from the run before (warm-up included).
  const cycleKey = options.cycle && `${options.method} ${options.path} ${options.cycle.from}`;
  const numbered = options.cycle && {
    setupRequest: (req) => {
      const at = cycled.get(cycleKey) ?? 0;
      cycled.set(cycleKey, at + 1);
      const n = String(options.cycle.from + (at % options.cycle.count));
      return { ...req, path: options.path.replace('{n}', n), body: options.body?.replace('{n}', n) };
    },
  };
  const main = { method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {}, body: options.body };
  const cycle = mixed ? [...Array.from({ length: options.mix.every - 1 }, () => main), mixed] : undefined;
  const instance = autocannon({
    url: options.url,
    ...(paths ? { requests: [{ setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }] } : {}),
    ...(cycle ? { requests: cycle } : {}),
    ...(numbered ? { requests: [numbered] } : {}),
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    body: options.body,
    connections: options.connections,
    pipelining: 1,
    duration: options.duration,
    timeout: 10,
  });
  // A request may expect another answer than a 2xx: a conditional GET's 304.
  const good = (statusCode) => (options.expectStatus === undefined ? statusCode >= 200 && statusCode <= 299 : statusCode === options.expectStatus);
  let answeredGood = 0;
  instance.on('response', (client, statusCode, _bytes, responseTime) => {
    const n = sent.get(client) ?? 0;
    sent.set(client, n + 1);
    if (!good(statusCode)) return;
    answeredGood++;
    all.add(responseTime);
    if (byKind) (n % options.mix.every === options.mix.every - 1 ? byKind.mixed : byKind.main).add(responseTime);
  });
  const result = await instance;
  const sorted = all.sorted();
  const completed = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    durationS: result.duration,
    completed,
    ok: answeredGood,
    non2xx: completed - answeredGood,
    statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count])),
    errors: result.errors,
    timeouts: result.timeouts,
    rps: completed / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    bytesPerResponse: completed ? result.throughput.total / completed : undefined,
    ...(byKind ? { byKind: { main: byKind.main.summary(), mixed: byKind.mixed.summary() } } : {}),
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
