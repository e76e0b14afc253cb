import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send, sleep } from '../faults/load.js';
import { ENTERPRISE_ENTRY, expectServed, startLegitimateClient } from './legitimate-client.js';

// A customer's key in an attacker's hands: valid, with quota to spare.
const ATTACKER_KEY = 'hostile-reader-key-0123456789';
const PIPELINED = 1_000;
/** The write timeout this server runs with (PETSTORE_WRITE_TIMEOUT_MS; 10 s by default): the test waits past it. */
const WRITE_TIMEOUT_MS = 2_000;

describe('a client that never reads its responses', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${ENTERPRISE_ENTRY},${ATTACKER_KEY}:enterprise:100000:1000000`,
      PETSTORE_WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS),
    });
    // 100 animals with 255-character names: a page of 100 is about 29 KB.
    for (let i = 0; i < 100; i++) {
      const created = await send({
        url: server.url,
        method: 'POST',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${ATTACKER_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `${i}`.padEnd(255, 'n'), categoryId: 1 }),
      });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => server?.stop());

  it(`has its connection closed once a response waits ${WRITE_TIMEOUT_MS / 1000} s to be taken, while others are served`, { timeout: 60_000 }, async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    let received = '';
    let closed = false;
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => (closed = true));
    socket.pause();
    await new Promise((resolve) => socket.once('connect', resolve));
    const request = `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${ATTACKER_KEY}\r\n\r\n`;
    socket.write(request.repeat(PIPELINED));
    const client = startLegitimateClient(server.url);
    // The attacker reads nothing for longer than the write timeout, then takes what is left.
    await sleep(WRITE_TIMEOUT_MS + 1_500);
    socket.resume();
    for (let i = 0; i < 50 && !closed; i++) await sleep(100);
    const outcomes = await client.stop();
    socket.destroy();
    expect(closed).toBe(true);
    const answered = received.split('HTTP/1.1 200 ').length - 1;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(PIPELINED);
    expectServed(outcomes, { atLeast: 20 });
  });
});
