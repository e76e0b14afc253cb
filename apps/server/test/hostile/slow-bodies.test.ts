import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { sleep } from '../faults/load.js';
import { ENTERPRISE_ENTRY, expectServed, startLegitimateClient } from './legitimate-client.js';

const FREE_KEYS = ['hostile-free-key-a-0123456789', 'hostile-free-key-b-0123456789'];
/** The body deadline this server runs with (PETSTORE_BODY_TIMEOUT_MS; 10 s by default), and the drip: 5 bytes in it. */
const BODY_TIMEOUT_MS = 2_000;
const DRIP_MS = BODY_TIMEOUT_MS / 5;

/** A create whose 64-byte body comes one byte every {@link DRIP_MS}; resolves with what the server answered and when it closed. */
function slowCreate(url: string, key: string) {
  const { hostname, port } = new URL(url);
  const body = JSON.stringify({ name: 'x'.repeat(39), categoryId: 1 });
  const startedAt = Date.now();
  return new Promise<{ answer: string; closedAfterMs: number }>((resolve) => {
    let answer = '';
    let sent = 0;
    let drip: NodeJS.Timeout | undefined;
    const socket: Socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /v1/pets HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      drip = setInterval(() => socket.writable && socket.write(body[sent++]!), DRIP_MS);
    });
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(drip);
      resolve({ answer, closedAfterMs: Date.now() - startedAt });
    });
  });
}

describe('slow bodies', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: [ENTERPRISE_ENTRY, ...FREE_KEYS.map((key) => `${key}:free`)].join(','),
      PETSTORE_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
    });
  });
  afterAll(() => server?.stop());

  it('from two free keys, 32 creates each dripping a byte at a fifth of the body deadline, never starve an enterprise client, and each gets 408 request_timeout at the deadline', { timeout: 60_000 }, async () => {
    const attack = FREE_KEYS.flatMap((key) => Array.from({ length: 32 }, () => slowCreate(server.url, key)));
    await sleep(500);
    const client = startLegitimateClient(server.url);
    const slow = await Promise.all(attack);
    expectServed(await client.stop(), { atLeast: 20 });
    for (const { answer, closedAfterMs } of slow) {
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 408 /);
      expect(head).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(body!)).toMatchObject({ code: 'request_timeout', status: 408 });
      // Cut off after the body's time (checked by a timer, not by the connections check), and not long after.
      expect(closedAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
      expect(closedAfterMs).toBeLessThan(BODY_TIMEOUT_MS + 3_000);
    }
  });
});
