import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';
import { send } from '../faults/load.js';
import { ENTERPRISE_ENTRY, ENTERPRISE_KEY, expectServed, startLegitimateClient } from './legitimate-client.js';
import { serverDatabases } from './databases.js';

/**
 * The security review's critical reproduction, as written: four connections, each a health check and 20 pipelined
 * requests without a key, reset at once. Every slot those requests held must come back with their connection.
 */
function fourResetConnections(url: string) {
  const { hostname, port } = new URL(url);
  return Promise.all(
    Array.from(
      { length: 4 },
      () =>
        new Promise<void>((resolve) => {
          const s = connect(Number(port), hostname, () => {
            s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n' + 'GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(20));
            s.resetAndDestroy();
          });
          s.on('error', () => {});
          s.on('close', () => resolve());
        }),
    ),
  );
}

describe.each(serverDatabases)('pipelined requests on reset connections, on $name', ({ env }) => {
  let server: ServerProcess;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await env();
    drop = database.drop;
    server = await startProcess({ ...database.env, PETSTORE_API_KEYS: ENTERPRISE_ENTRY });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it('leave an enterprise client served with 200 throughout and afterwards, past twice the default ceiling of requests in flight', { timeout: 90_000 }, async () => {
    const client = startLegitimateClient(server.url);
    // 30 rounds: 2,400 pipelined requests on dead connections, over twice PETSTORE_MAX_CONCURRENT_REQUESTS (1024).
    for (let round = 0; round < 30; round++) await fourResetConnections(server.url);
    const afterwards = await send({ url: server.url, method: 'GET', path: '/v1/pets?limit=5', headers: { authorization: `Bearer ${ENTERPRISE_KEY}` } });
    const outcomes = await client.stop();
    expectServed(outcomes);
    expect(afterwards.status).toBe(200);
    expect((await send({ url: server.url, method: 'GET', path: '/livez' })).status).toBe(200);
    // Nothing was refused as overloaded: the process never thought it was.
    expect(server.stdout()).not.toContain('overloaded: refusing requests');
  });
});
