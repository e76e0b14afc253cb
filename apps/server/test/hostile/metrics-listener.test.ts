import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOCKET_LIMITS } from '../../src/server.js';
import { startProcess, type ServerProcess } from '../helpers.js';

// With HOST=0.0.0.0, as a fleet runs, /metrics and /tls/ask were public and kept Node's 60 s header timeout.
describe('the metrics listener of a service on 0.0.0.0', () => {
  let server: ServerProcess;
  let metricsUrl: string;
  beforeAll(async () => {
    server = await startProcess({ HOST: '0.0.0.0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_METRICS_PORT: '0' });
    metricsUrl = /"metricsUrl":"(http:\/\/[^"]+)"/.exec(server.stdout())![1]!;
  });
  afterAll(() => server.stop());

  it('stays on loopback unless PETSTORE_METRICS_HOST says otherwise', async () => {
    expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:/);
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
    expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(200);
  });

  it("closes a client that never finishes its headers within the API port's limit, while scrapes are served", { timeout: 60_000 }, async () => {
    const { port } = new URL(metricsUrl);
    const started = performance.now();
    const closed = new Promise<number>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /metrics HTTP/1.1\r\nHost: metrics\r\n'));
      socket.on('error', () => {});
      socket.on('close', () => resolve(performance.now() - started));
      socket.resume();
    });
    for (let i = 0; i < 3; i++) expect((await fetch(`${metricsUrl}/metrics`)).status).toBe(200);
    const after = await closed;
    expect(after).toBeGreaterThan(SOCKET_LIMITS.headersTimeout - 1_000);
    expect(after).toBeLessThan(SOCKET_LIMITS.headersTimeout + SOCKET_LIMITS.connectionsCheckingInterval + 3_000);
  });
});
