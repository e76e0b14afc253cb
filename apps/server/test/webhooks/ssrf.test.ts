import { createServer, type Server } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { dnsmasqInstalled, startDnsServer } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { call, until } from './receiver.js';

// DECISIONS "Events", no requests into private networks: a server without PETSTORE_WEBHOOKS_ALLOW_PRIVATE refuses
// loopback, private, link-local and IPv4-mapped targets, and names that resolve to them (through its
// PETSTORE_DNS_SERVERS, a dnsmasq of the test's own), at registration and at each connection (a name rebound after
// registration). A TCP listener on loopback, the port every refused URL names, sees no connection at all.
const KEY = 'webhook-ssrf-key-0123456789abcd';
/** A public address the test never connects to: the rebound name's, at registration only. */
const PUBLIC = '93.184.215.14';

describe.runIf(dnsmasqInstalled)('webhook targets inside the network, refused end to end', () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let server: ServerProcess;
  let listener: Server;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    port = (listener.address() as AddressInfo).port;
    dns = await startDnsServer({
      addresses: [
        ['inside.example.test', '127.0.0.1'],
        ['rebound.example.test', PUBLIC],
      ],
    });
    server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${KEY}:enterprise:100000:1000000`,
      PETSTORE_DNS_SERVERS: dns.server,
      PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: '100,100',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await dns?.stop();
    await new Promise((resolve) => listener?.close(resolve));
  });

  const register = (url: string) => call(server.url, KEY, 'POST', '/webhooks', { url, events: ['pet.created'] });
  /** The documented refusal: 400 `invalid_request`, the reason in the message and in `details` on `url`. */
  const refusal = (reason: string) => ({
    status: 400,
    body: { code: 'invalid_request', status: 400, message: `The webhook URL is refused: it ${reason}.`, details: [{ path: 'url', message: reason }] },
  });

  it('refuses loopback, private, metadata and IPv4-mapped addresses, and a name that resolves to loopback, at registration', async () => {
    expect(await register(`http://127.0.0.1:${port}/`)).toEqual(refusal('must be an https:// URL, not http://'));
    expect(await register(`https://127.0.0.1:${port}/`)).toEqual(refusal('127.0.0.1 is not a public address'));
    expect(await register('https://10.0.0.1/')).toEqual(refusal('10.0.0.1 is not a public address'));
    expect(await register('https://169.254.169.254/')).toEqual(refusal('169.254.169.254 is not a public address'));
    // The URL parser writes it as ::ffff:7f00:1: the same address.
    expect(await register(`https://[::ffff:127.0.0.1]:${port}/`)).toEqual(refusal('::ffff:7f00:1 is not a public address'));
    expect(await register(`https://inside.example.test:${port}/`)).toEqual(refusal('inside.example.test resolves to 127.0.0.1, which is not a public address'));
    expect((await call(server.url, KEY, 'GET', '/webhooks')).body).toEqual([]);
    expect(connections).toBe(0);
  });

  it('refuses at each send a name rebound to loopback after its registration, and records the refusal', { timeout: 30_000 }, async () => {
    const registered = await register(`https://rebound.example.test:${port}/hooks`);
    expect(registered.status).toBe(201);
    await dns.set({ addresses: [['rebound.example.test', '127.0.0.1']] });
    expect((await call(server.url, KEY, 'POST', '/pets', { name: 'Bait', categoryId: 1 })).status).toBe(201);
    // Three attempts (the schedule is 100 ms, 100 ms), each refused as it connects, then failed.
    const reason = 'rebound.example.test resolves to 127.0.0.1, which is not a public address';
    let log: { body: unknown } = { body: [] };
    await until(
      'the delivery to fail',
      async () => {
        log = await call(server.url, KEY, 'GET', `/webhooks/${registered.body.id}/deliveries`);
        return (log.body as { status: string }[])[0]?.status === 'failed';
      },
      15_000,
    );
    expect(log.body).toEqual([expect.objectContaining({ eventType: 'pet.created', status: 'failed', attempts: 3, responseStatus: null, error: reason })]);
    // Each refusal is logged (at info) with its reason, once recorded.
    const logged = () => server.stdout().split('\n').filter((line) => line.includes('"msg":"webhook target refused"'));
    await until('the third refusal logged', () => logged().length >= 3, 5_000);
    const refusals = logged().map((line) => JSON.parse(line) as { refused: string; error: string; attempt: number });
    expect(refusals.map(({ refused, error, attempt }) => ({ refused, error, attempt }))).toEqual([1, 2, 3].map((attempt) => ({ refused: 'address', error: reason, attempt })));
    expect(connections).toBe(0);
  });
});
