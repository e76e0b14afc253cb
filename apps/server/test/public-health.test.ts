import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send as sendDirect } from './faults/load.js';
import { haproxyInstalled, send, startHaproxy } from './haproxy.js';
import { startProcess, type ServerProcess } from './helpers.js';
import { nginxInstalled, startNginx } from './nginx.js';

// Where a documented proxy serves the public, /healthz is kept from it: the proxy answers it with the service's own
// JSON 404, while the instance still answers it to monitoring that asks the instance itself, and /livez (what the
// proxies check) passes. (Caddy's recipes: caddy.test.ts.)

const NOT_FOUND = { code: 'not_found', message: 'The requested resource could not be found.', status: 404 };

const proxies = [
  { name: 'HAProxy', installed: haproxyInstalled, start: startHaproxy },
  { name: 'nginx', installed: nginxInstalled, start: startNginx },
];

describe.each(proxies)("docs/deploying.md's $name recipe", ({ installed, start }) => {
  // In CI (.ci/run installs both) this must run: there it fails instead.
  const unsupported = !installed && !process.env.CI;
  let instance: ServerProcess;
  let proxy: { port: number; stop(): Promise<void> };
  beforeAll(async () => {
    if (unsupported) return;
    instance = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_TRUST_PROXY: 'true' });
    // The recipe balances over three instances: here all three are this one.
    proxy = await start([instance.url, instance.url, instance.url]);
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await instance?.stop();
  });

  it.skipIf(unsupported)('answers /healthz from the public with the JSON 404 itself, and passes /livez on', async () => {
    for (const path of ['/healthz', '/healthz?verbose=1']) {
      const refused = await send(proxy.port, path);
      expect(refused.status).toBe(404);
      expect(refused.headers['content-type']).toBe('application/json');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(refused.body)).toEqual(NOT_FOUND);
    }
    expect((await send(proxy.port, '/livez')).status).toBe(200);
    // Monitoring asks the instance itself.
    const direct = await sendDirect({ url: instance.url, method: 'GET', path: '/healthz' });
    expect(direct.status).toBe(200);
    expect(JSON.parse(direct.body)).toMatchObject({ status: 'ok', checks: { database: 'ok' } });
  });
});
