import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { haproxyInstalled, startHaproxy } from '../haproxy.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { ENTERPRISE_ENTRY, ENTERPRISE_KEY, expectServed, startLegitimateClient } from './legitimate-client.js';
import { serverDatabases } from './databases.js';
import { clientInChild, cpuPerRequest } from './server-cpu.js';

/** Short durations (the defaults are 10 s and 1 s): what used to be held for the body's 10 s is held for 2 s here. */
const BODY_TIMEOUT_MS = 2_000;
const LINGER_MS = 300;

/**
 * The headers of a create with no key whose body never comes: a `Content-Length` of 65,537 to 1,000,000, or chunked.
 * Settles with the status line, whether the answer said `Connection: close`, and how long after it the server closed.
 */
function silentKeylessCreate(url: string, index: number) {
  const { hostname, port } = new URL(url);
  const framing = index % 3 === 0 ? 'Transfer-Encoding: chunked' : `Content-Length: ${65_537 + ((index * 7_919) % 934_464)}`;
  return new Promise<{ status: string; close: boolean; closedAfterAnswerMs: number }>((resolve) => {
    let answer = '';
    let answeredAt = 0;
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST /v1/pets HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`);
    });
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      answeredAt ||= Date.now();
      answer += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const head = answer.split('\r\n\r\n')[0] ?? '';
      resolve({ status: head.split('\r\n')[0] ?? '', close: /\r\nconnection: close/i.test(head), closedAfterAnswerMs: Date.now() - (answeredAt || Date.now()) });
    });
  });
}

/**
 * A client in a process of its own (so that only the server's CPU is measured here), sending `count` requests one
 * after another, each on a new connection (TLS for an `https:` URL), framed as `framing` says, until its answer has
 * come.
 */
function attackFromChild(url: string, count: number, framing: 'keyed-get' | 'content-length' | 'chunked' | 'one-byte-chunks', key = '') {
  const { port, protocol } = new URL(url);
  const script = `
    import net from 'node:net';
    import tls from 'node:tls';
    const [port, count, framing, key, secure] = process.argv.slice(1);
    const head = 'POST /v1/pets HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\n' + (key ? 'Authorization: Bearer ' + key + '\\r\\n' : '');
    const mebibyte = Buffer.alloc(1 << 20, 0x20);
    const oneByteChunks = Buffer.from('1\\r\\nx\\r\\n'.repeat(1 << 20));
    const statuses = {};
    for (let i = 0; i < Number(count); i++) {
      const status = await new Promise((resolve) => {
        let answer = '';
        // Through the HAProxy recipe: TLS, as it listens (its certificate is the test's own).
        const connect = (ready) => secure ? tls.connect({ port: Number(port), host: '127.0.0.1', rejectUnauthorized: false }, ready) : net.connect(Number(port), '127.0.0.1', ready);
        const s = connect(() => {
          if (framing === 'keyed-get') s.write('GET /v1/pets?limit=1 HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\nAuthorization: Bearer ' + key + '\\r\\n\\r\\n');
          else if (framing === 'content-length') { s.write(head + 'Content-Length: ' + mebibyte.length + '\\r\\n\\r\\n'); s.write(mebibyte); }
          else if (framing === 'chunked') { s.write(head + 'Transfer-Encoding: chunked\\r\\n\\r\\n'); s.write(mebibyte.subarray(0, 65536).toString('latin1').replace(/^/, '10000\\r\\n') + '\\r\\n'); }
          else { s.write(head + 'Transfer-Encoding: chunked\\r\\n\\r\\n'); s.write(oneByteChunks); }
        });
        // The answer is what is measured: the connection is left once it has come (whatever the server's linger).
        s.on('data', (d) => {
          answer += d;
          if (answer.includes('\\r\\n\\r\\n')) s.destroy();
        });
        s.on('error', () => {});
        s.on('close', () => resolve(answer.split('\\r\\n')[0]));
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    console.log(JSON.stringify(statuses));
  `;
  return clientInChild(script, [port, String(count), framing, key, protocol === 'https:' ? 'tls' : '']);
}

/**
 * Measures up to three times, until a measure is under `bound`, and answers the lowest: a pause that is not the
 * request's (a collection, a flush of the store landing in a window of some 25 ms) does not fail the test, while a
 * cost that is the request's is over the bound every time.
 */
async function lowestUnder(bound: number, measure: () => Promise<number>): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3 && lowest >= bound; i++) lowest = Math.min(lowest, await measure());
  return lowest;
}

describe.each(serverDatabases)('requests without a key, answered from their headers, on $name', ({ env }) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await env();
    drop = database.drop;
    running = await startServer(
      loadConfig({
        PORT: '0',
        ...database.env,
        PETSTORE_API_KEYS: ENTERPRISE_ENTRY,
        PETSTORE_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
        PETSTORE_LINGER_MS: String(LINGER_MS),
      }),
    );
  });
  afterAll(async () => {
    await running?.close();
    await drop?.();
  });

  it('1,100 connections sending only the headers of a large body hold no slot: an enterprise client is served with 200 throughout', { timeout: 60_000 }, async () => {
    const client = startLegitimateClient(running.url);
    const results: Awaited<ReturnType<typeof silentKeylessCreate>>[] = [];
    // Two rounds, more connections than the 1,024 slots each time, within the body's time.
    for (let round = 0; round < 2; round++) results.push(...(await Promise.all(Array.from({ length: 1_100 }, (_, i) => silentKeylessCreate(running.url, i)))));
    expectServed(await client.stop(), { atLeast: 10 });
    // Refused from their headers: 401, 429 once the address is over its minute, or 503 when the process sheds load
    // on a busy machine (DECISIONS: key-less requests are shed first), never anything else.
    expect(results.filter((r) => !/^HTTP\/1\.1 (401|429|503) /.test(r.status)).map((r) => r.status)).toEqual([]);
    expect(results.every((r) => r.close)).toBe(true);
    // Closed after a short linger, not held until the body's time is up.
    expect(Math.max(...results.map((r) => r.closedAfterAnswerMs))).toBeLessThan(BODY_TIMEOUT_MS);
  });

  it('costs about what a keyed request does with Content-Length or chunked, and at most one socket read of 1-byte chunks', { timeout: 120_000 }, async () => {
    const count = 40;
    // Warm up, then the keyed baseline: a list on a new connection each time.
    await attackFromChild(running.url, 10, 'keyed-get', ENTERPRISE_KEY);
    const keyed = await cpuPerRequest(count, () => attackFromChild(running.url, count, 'keyed-get', ENTERPRISE_KEY));
    // Ratios with room for a shared machine, where reading a 1 MiB body cost 5 ms, and its 1-byte chunks seconds. The
    // 1-byte chunks that one socket read had brought before the body was stopped are still parsed by Node (about
    // 11,000 calls of its body callback, some 10 ms): only its internal parser could skip them (docs/decisions.md).
    // Behind the documented proxy the server reads a few KiB of such a body (the next test).
    const bounds = { 'content-length': Math.max(3 * keyed, 2), chunked: Math.max(3 * keyed, 2), 'one-byte-chunks': Math.max(40 * keyed, 30) };
    const framings = Object.keys(bounds) as (keyof typeof bounds)[];
    const costs: Record<string, number> = {};
    for (const framing of framings) {
      costs[framing] = await lowestUnder(bounds[framing], async () => {
        let statuses: Record<string, number> = {};
        const cost = await cpuPerRequest(count, async () => (statuses = await attackFromChild(running.url, count, framing)));
        expect(Object.keys(statuses).every((status) => /^HTTP\/1\.1 (401|429) /.test(status))).toBe(true);
        return cost;
      });
    }
    // Served afterwards (beside the flood above, the legitimate client's own CPU would blur the measure here).
    const after = startLegitimateClient(running.url);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expectServed(await after.stop(), { atLeast: 5 });
    console.log(`CPU per request (ms): keyed list ${keyed.toFixed(3)}, ${Object.entries(costs).map(([f, ms]) => `${f} ${ms.toFixed(3)}`).join(', ')}`);
    for (const framing of framings) expect(costs[framing]).toBeLessThan(bounds[framing]);
  });

  it.runIf(haproxyInstalled || process.env.CI)(
    'reads a few KiB of a body of 1-byte chunks behind the HAProxy recipe, and costs about what a keyed request does',
    { timeout: 120_000 },
    async () => {
      // docs/deploying.md's haproxy.cfg, balancing over this one server: HAProxy reads what the client sends and
      // passes the body on in pieces of its own, so the server's first read holds few of the client's chunks.
      const balancer = await startHaproxy([running.url, running.url, running.url]);
      try {
        const url = `https://127.0.0.1:${balancer.port}`;
        const count = 40;
        await attackFromChild(url, 10, 'keyed-get', ENTERPRISE_KEY);
        const keyed = await cpuPerRequest(count, () => attackFromChild(url, count, 'keyed-get', ENTERPRISE_KEY));
        // What the server read of each request (its socket's bytes, counted as each connection closes).
        let read = 0;
        const tally = (socket: Socket) => socket.once('close', () => (read += socket.bytesRead));
        running.server.on('connection', tally);
        let statuses: Record<string, number> = {};
        const oneByte = await cpuPerRequest(count, async () => (statuses = await attackFromChild(url, count, 'one-byte-chunks')));
        await new Promise((resolve) => setTimeout(resolve, LINGER_MS + 200));
        running.server.off('connection', tally);
        console.log(`behind HAProxy: CPU per request (ms) keyed list ${keyed.toFixed(3)}, one-byte-chunks ${oneByte.toFixed(3)}; read ${Math.round(read / count / 1024)} KiB of each 6 MiB body`);
        expect(Object.keys(statuses).every((status) => /^HTTP\/1\.1 (401|429) /.test(status))).toBe(true);
        // At most what a few socket reads bring, never the body (read whole, it cost twice a keyed request). The bytes
        // are the assertion that cannot be noise; the CPU bound is loose.
        expect(read / count).toBeLessThan(256 * 1024);
        expect(oneByte).toBeLessThan(Math.max(4 * keyed, 3));
      } finally {
        await balancer.stop();
      }
    },
  );
});
