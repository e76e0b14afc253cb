import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from './helpers.js';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const KEY = 'browser_cors_key_0123456789';

/** The page a browser app would be: served from its own origin, calling the API on another with a bearer key. */
const page = (api: string) => `<!DOCTYPE html><html><body><script>
window.results = (async () => {
  const auth = { authorization: 'Bearer ${KEY}' };
  const list = await fetch('${api}/v1/pets?limit=1', { headers: auth });
  const created = await fetch('${api}/v1/pets', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'browser-1' },
    body: JSON.stringify({ name: 'From the browser', categoryId: 1 }),
  });
  const trpc = await fetch('${api}/trpc/pets.list?input=' + encodeURIComponent(JSON.stringify({ limit: 1 })), { headers: auth });
  return {
    listStatus: list.status,
    remaining: list.headers.get('X-RateLimit-Remaining'),
    link: list.headers.get('Link'),
    requestId: list.headers.get('X-Request-Id'),
    createdStatus: created.status,
    location: created.headers.get('Location'),
    trpcStatus: trpc.status,
    trpcRemaining: trpc.headers.get('X-RateLimit-Remaining'),
    trpcLink: trpc.headers.get('Link'),
  };
})().catch((error) => ({ error: String(error) }));
</script></body></html>`;

describe.skipIf(!existsSync(executablePath))('a browser app on another origin', () => {
  let api: ServerProcess;
  let app: Server;
  let appUrl: string;
  beforeAll(async () => {
    api = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro` });
    for (const name of ['Rex', 'Bo']) {
      await fetch(`${api.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 1 }),
      });
    }
    const html = page(api.url);
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await api.stop();
    await new Promise((resolve) => app.close(resolve));
  });

  it('calls /v1 and /trpc with a key and reads the rate-limit, Link, Location and request-id headers', { timeout: 60_000 }, async () => {
    expect(new URL(appUrl).origin).not.toBe(new URL(api.url).origin);
    const profile = await mkdtemp(join(tmpdir(), 'petstore-cors-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-dev-shm-usage'],
    });
    try {
      const tab = context.pages()[0] ?? (await context.newPage());
      await tab.goto(appUrl);
      const results = await tab.evaluate(() => (globalThis as unknown as { results: Promise<Record<string, unknown>> }).results);
      expect(results).toMatchObject({
        listStatus: 200,
        remaining: expect.stringMatching(/^[0-9]+$/),
        link: expect.stringMatching(/^<http:\/\/127\.0\.0\.1:[0-9]+\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/),
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        createdStatus: 201,
        location: expect.stringMatching(/\/v1\/pets\/[0-9]+$/),
        trpcStatus: 200,
        trpcRemaining: expect.stringMatching(/^[0-9]+$/),
        trpcLink: expect.stringMatching(/\/trpc\/pets\.list\?input=/),
      });
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  });
});
