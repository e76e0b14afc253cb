import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendRaw } from './haproxy.js';
import { startProcess, type ServerProcess } from './helpers.js';
import { nginxInstalled, startNginx, type Nginx } from './nginx.js';

const KEY = 'nginx-recipe-key-0123456789';

// In CI (.ci/run installs nginx) this must run: there it fails instead.
const unsupported = process.env.CI || nginxInstalled ? undefined : 'nginx is not installed (bash .ci/install-nginx.sh)';
if (unsupported) console.warn(`skipping the nginx recipe: ${unsupported}`);

describe.skipIf(unsupported)("docs/deploying.md's nginx recipe in front of three instances", () => {
  let instances: ServerProcess[];
  let nginx: Nginx;
  const auth = { authorization: `Bearer ${KEY}` };

  beforeAll(async () => {
    const settings = { PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_TRUST_PROXY: 'true' };
    // One at a time: three embedded databases starting at once take long on a busy machine.
    instances = [];
    for (let i = 0; i < 3; i++) instances.push(await startProcess(settings));
    nginx = await startNginx(instances.map((instance) => instance.url));
  }, 120_000);
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all((instances ?? []).map((instance) => instance.stop('SIGKILL')));
  });

  it('serves the API over HTTPS, telling the instances the scheme, the host and the client address', async () => {
    const created = await send(nginx.port, '/v1/pets', {
      method: 'POST',
      // An X-Forwarded-Host the client wrote itself is replaced by the host it asked for.
      headers: { ...auth, host: 'api.example.com', 'content-type': 'application/json', 'x-forwarded-host': 'evil.example.net' },
      body: JSON.stringify({ name: 'Proxied', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    expect(created.headers['location']).toMatch(/^https:\/\/api\.example\.com\/v1\/pets\/\d+$/);
    // The address nginx saw is the one counted, whatever the client writes to the left of it.
    const first = await send(nginx.port, '/v1/pets', { from: '127.0.0.9', headers: { 'x-forwarded-for': '198.51.100.7' } });
    expect(first.status).toBe(401);
    expect(first.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('answers a request whose headers it cannot read with the JSON 400', async () => {
    const answer = await sendRaw(nginx.port, 'GET /v1/pets HTTP/1.1\r\nHost: api.example.com\r\nthis line has no colon\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(answer.body)).toEqual({ code: 'invalid_request', message: 'The request could not be read.', status: 400 });
  });

  it('keeps answering every request while one instance is killed', async () => {
    await instances[2]!.stop('SIGKILL');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await send(nginx.port, '/v1/pets?limit=1', { headers: auth })).status);
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 200));
  });

  it('answers a JSON 503 with Retry-After once no instance is left', async () => {
    await Promise.all(instances.map((instance) => instance.stop('SIGKILL')));
    const answer = await send(nginx.port, '/v1/pets', { headers: auth });
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['retry-after']).toBe('1');
    expect(JSON.parse(answer.body)).toEqual({ code: 'unavailable', message: 'The service is temporarily unavailable.', status: 503 });
  });
});
