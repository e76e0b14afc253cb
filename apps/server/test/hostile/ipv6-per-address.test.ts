import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { processClock, type ProcessClock } from '@petstore/testing';
import { startProcess, type ServerProcess } from '../helpers.js';

// Per-address limits count an IPv6 client by its /64: a client who owns a /64 has 2^64 addresses, not 2^64 buckets.
// The addresses come from the trusted proxy in front (loopback here), as X-Forwarded-For.
const KEY = 'hostile-ipv6-known-key-01';
const OTHER_KEY = 'hostile-ipv6-new-key-0001';

describe('clients on IPv6 without a valid key', () => {
  let server: ServerProcess;
  // The address limit counts per clock minute: the server's clock is one the test controls.
  let clock: ProcessClock;
  beforeAll(async () => {
    clock = await processClock();
    server = await startProcess({
      ...clock.env,
      HOST: '::',
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_TRUST_PROXY: 'loopback',
      PETSTORE_API_KEYS: `${KEY}:pro,${OTHER_KEY}:pro`,
    });
  });
  afterAll(async () => {
    await server.stop();
    await clock.close();
  });

  // The listener is on ::, every address of the machine; the test speaks to it on loopback only.
  const base = () => `http://127.0.0.1:${new URL(server.url).port}`;
  const from = (address: string, key?: string) =>
    fetch(`${base()}/v1/pets`, { headers: { 'x-forwarded-for': address, ...(key ? { authorization: `Bearer ${key}` } : {}) } });

  it('are counted by their /64, while a key known in it and clients of other networks are served', async () => {
    // Start the 70 requests where they cannot cross into the next minute.
    await clock.minuteWithRoom(15);
    expect((await from('2001:db8:1:1::5', KEY)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) statuses.push((await from(`2001:db8:1:1:${(0x1000 + i).toString(16)}::1`)).status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual(Array(10).fill(429));
    // The key that succeeded in that /64 is known there, from any of its addresses.
    expect((await from('2001:db8:1:1::5', KEY)).status).toBe(200);
    expect((await from('2001:db8:1:1::6', KEY)).status).toBe(200);
    // A valid key never seen there is refused like a wrong one; another /64 is its own bucket.
    expect((await from('2001:db8:1:1::7', OTHER_KEY)).status).toBe(429);
    expect((await from('2001:db8:1:2::1')).status).toBe(401);
    expect((await from('2001:db8:1:2::1', OTHER_KEY)).status).toBe(200);
  });

  it('still counts IPv4 clients of a dual-stack listener by their own address', async () => {
    const { port } = new URL(server.url);
    const direct = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/v1/pets', localAddress }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject).end();
      });
    await clock.minuteWithRoom(10);
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push(await direct('127.0.0.2'));
    expect(statuses.at(-1)).toBe(429);
    expect(await direct('127.0.0.3')).toBe(401);
  });
});
