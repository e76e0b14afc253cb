import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

// A request body that breaks off is the client's doing: never an outage of the database, never a server error in the
// key's usage. Two ways a body breaks: half of it sent, then the connection reset; and a chunk size Node's parser
// refuses (one that overflows, one that is not hexadecimal), after which Node drops the connection itself.

const KEY = 'client-faults-key-0123456789abcdef';
/** Aborted bodies of each kind, per database. */
const ABORTED = 100;
/** How long a client waits, half its body sent, before it breaks off: long enough for the server to be reading it. */
const PAUSE_MS = 20;
const BODY = JSON.stringify({ name: 'Broken off', categoryId: 1 });

const databases = [
  { name: 'the embedded database', env: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          env: async () => {
            const { url, drop } = await scratchPostgres();
            // The quota in memory: the test counts what the request stream costs, not the quota store's transactions.
            return { env: { DATABASE_URL: url, PETSTORE_RATE_LIMIT_STORE: 'memory' }, drop };
          },
        },
      ]
    : []),
];

function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** Opens a connection, sends `head` and, after a pause, `breakOff` does the rest; settles once the socket closed. */
function brokenRequest(url: string, head: string, breakOff: (socket: import('node:net').Socket) => void): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head);
      setTimeout(() => breakOff(socket), PAUSE_MS);
    });
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.on('close', () => resolve());
  });
}

const headers = (framing: string) =>
  `POST /v1/pets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n${framing}\r\n`;

/** Half a body of the length it declared, then a reset (TCP RST). */
const halfThenReset = (url: string) =>
  brokenRequest(url, headers(`Content-Length: ${BODY.length}\r\n`) + BODY.slice(0, BODY.length / 2), (socket) => socket.resetAndDestroy());

/** A first chunk, then a chunk size that overflows (or, `invalid`, is not hexadecimal): Node's parser gives up. */
const badChunkSize = (url: string, invalid: boolean) =>
  brokenRequest(url, `${headers('Transfer-Encoding: chunked\r\n')}8\r\n${BODY.slice(0, 8)}\r\n`, (socket) =>
    socket.write(invalid ? 'zz\r\n' : 'ffffffffffffffffffff\r\n'),
  );

/** The value of every series of `name` whose labels include these, summed. */
function total(page: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of page.split('\n')) {
    const match = new RegExp(`^${name}\\{(.*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const found = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([label, value]) => found[label] === value)) sum += Number(match[2]);
  }
  return sum;
}

describe.each(databases)('request bodies that break off, from a valid key, on $name', ({ env }) => {
  let running: RunningServer;
  let drop: () => Promise<void>;
  const logs = captureLogs();
  beforeAll(async () => {
    const database = await env();
    drop = database.drop;
    running = await startServer(
      loadConfig({ PORT: '0', PETSTORE_METRICS_PORT: '0', PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000`, ...database.env }),
      { logger: logs.logger },
    );
  });
  afterAll(async () => {
    await running?.close();
    await drop?.();
  });

  it(`are ${ABORTED} client errors each way, with no outage line, no 503 for the database and no server error in the key's usage`, async () => {
    // One request served first: the key is then known and cached, as it is for a client that has been calling.
    const served = await fetch(`${running.url}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: BODY });
    expect(served.status).toBe(201);
    for (let i = 0; i < ABORTED; i++) {
      await Promise.all([halfThenReset(running.url), badChunkSize(running.url, i % 2 === 1)]);
    }
    // Each broken request ends in the ledger (counted against the key, as every request with a valid key is).
    const usage = async () => (await running.service.store.usage()).find((row) => row.operationId === 'createPet');
    await expect.poll(async () => {
      const row = await usage();
      return row ? row.served + row.clientErrors + row.serverErrors + row.rateLimited + row.banned : 0;
    }, { timeout: 15_000, interval: 100 }).toBe(1 + 2 * ABORTED);

    const page = await (await fetch(`${running.metricsUrl}/metrics`)).text();
    const errorLines = logs.lines.filter((line) => (line.level as number) >= 50).map((line) => line.msg);
    const row = await usage();
    console.log(
      JSON.stringify({
        abortedBodies: 2 * ABORTED,
        errorLines: errorLines.length,
        outageLines: errorLines.filter((msg) => String(msg).includes('unavailable')).length,
        databaseReason503s: total(page, 'petstore_http_requests_total', { reason: 'database' }),
        ledger: { clientErrors: row?.clientErrors, serverErrors: row?.serverErrors },
      }),
    );
    expect(row).toMatchObject({ served: 1, clientErrors: 2 * ABORTED, serverErrors: 0 });
    expect(errorLines).toEqual([]);
    expect(total(page, 'petstore_http_requests_total', { route: '/v1/pets', status: '503' })).toBe(0);
    expect(total(page, 'petstore_http_requests_total', { reason: 'database' })).toBe(0);
    expect(total(page, 'petstore_http_requests_total', { route: '/v1/pets', status: '400' })).toBe(2 * ABORTED);
    // The database never went anywhere: health says so, and no outage was noted.
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
  });
});
