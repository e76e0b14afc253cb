import { connect, type Socket } from 'node:net';
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOCKET_LIMITS } from '../../src/server.js';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send, sleep } from './load.js';

const key = 'slow-clients-key-0123456789';

describe('socket limits', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${key}:enterprise:100000000:1000000000` });
  });
  afterAll(() => server?.stop());

  it('keeps serving other clients while 100 connections send their headers one byte a second, and cuts those off at the headers timeout', { timeout: 40_000 }, async () => {
    const { hostname, port } = new URL(server.url);
    const header = `GET /v1/pets HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`;
    const slow: { socket: Socket; answer: string; closedAt?: number }[] = [];
    const openedAt = Date.now();
    for (let i = 0; i < 100; i++) {
      const socket = connect({ host: hostname, port: Number(port) });
      const entry: (typeof slow)[number] = { socket, answer: '' };
      socket.setEncoding('utf8').on('data', (chunk: string) => (entry.answer += chunk));
      socket.on('error', () => {});
      socket.on('close', () => (entry.closedAt = Date.now()));
      slow.push(entry);
    }
    let sent = 0;
    const drip = setInterval(() => {
      for (const { socket } of slow) if (!socket.destroyed) socket.write(header[sent % header.length]!);
      sent += 1;
    }, 1_000);
    try {
      // Meanwhile an ordinary client is served as usual.
      const agent = new Agent({ keepAlive: true, maxSockets: 4 });
      const latencies: number[] = [];
      while (Date.now() - openedAt < 4_000) {
        const outcome = await send({ url: server.url, agent, method: 'GET', path: '/v1/pets?limit=5', headers: { authorization: `Bearer ${key}` }, timeoutMs: 2_000 });
        expect(outcome.status).toBe(200);
        latencies.push(outcome.endedAt - outcome.sentAt);
      }
      agent.destroy();
      expect(latencies.length).toBeGreaterThan(20);
      expect(Math.max(...latencies)).toBeLessThan(1_000);
      expect(slow.every((s) => s.closedAt === undefined)).toBe(true);

      // The headers timeout (checked every second) ends every slow connection with 408.
      const bound = SOCKET_LIMITS.headersTimeout + 2 * SOCKET_LIMITS.connectionsCheckingInterval + 3_000;
      while (Date.now() - openedAt < bound && slow.some((s) => s.closedAt === undefined)) await sleep(200);
      expect(slow.filter((s) => s.closedAt === undefined)).toHaveLength(0);
      for (const s of slow) {
        expect(s.answer).toMatch(/^HTTP\/1\.1 408 /);
        expect(s.closedAt! - openedAt).toBeGreaterThanOrEqual(SOCKET_LIMITS.headersTimeout - 100);
      }
      console.info(`slow clients: ${latencies.length} ordinary requests served meanwhile, slowest ${Math.max(...latencies)} ms; slow connections cut after ${Math.min(...slow.map((s) => s.closedAt! - openedAt))}-${Math.max(...slow.map((s) => s.closedAt! - openedAt))} ms`);
    } finally {
      clearInterval(drip);
      for (const { socket } of slow) socket.destroy();
    }
  });

  it('answers 431 to headers larger than 16 KiB and serves headers just under it', async () => {
    const big = await send({ url: server.url, method: 'GET', path: '/healthz', headers: { 'x-big': 'b'.repeat(SOCKET_LIMITS.maxHeaderSize + 1) } });
    expect(big.status).toBe(431);
    const fits = await send({ url: server.url, method: 'GET', path: '/healthz', headers: { 'x-big': 'b'.repeat(SOCKET_LIMITS.maxHeaderSize - 1_024) } });
    expect(fits.status).toBe(200);
  });
});
