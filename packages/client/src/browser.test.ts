import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listen, testDatabases, type Listening } from '@petstore/testing';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from './testing/service.js';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const MINUTE = 60_000;
/** The client's dependencies, as an import map names them for a page that loads modules without a bundler. */
const pLimit = createRequire(import.meta.url).resolve('p-limit');
const modules: Record<string, string> = { 'p-limit': pLimit, 'yocto-queue': createRequire(pLimit).resolve('yocto-queue') };
const importMap = JSON.stringify({ imports: Object.fromEntries(Object.keys(modules).map((name) => [name, `/modules/${name}.js`])) });

/** A browser app on its own origin that imports the built client as a module and calls the API on another origin. */
const page = (api: string, key: string, freeKey: string) => `<!DOCTYPE html><html><body>
<script type="importmap">${importMap}</script>
<script type="module">
import { createClient, PetStoreApiError } from '/client/index.js';
window.burst = async () => {
  const statuses = [];
  // Past the browser's own cache: it would revalidate these identical reads, and a 304 spends no window.
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, { ...init, cache: 'no-store' });
    statuses.push(response.status === 429 ? (await response.clone().json()).code : response.status);
    return response;
  };
  const free = createClient({ baseUrl: '${api}', apiKey: '${freeKey}', fetch, maxRetries: 5 });
  const pages = await Promise.all(Array.from({ length: 75 }, () => free.listPets({ limit: 1 })));
  return { answered: pages.length, statuses };
};
window.revalidated = async () => {
  const remaining = [];
  const petstore = createClient({ baseUrl: '${api}', apiKey: '${key}', onRateLimit: (fields) => remaining.push(fields.remaining) });
  const first = await petstore.listPets({ limit: 2, status: 'sold' });
  const again = await petstore.listPets({ limit: 2, status: 'sold' });
  return { same: JSON.stringify(first) === JSON.stringify(again), remaining };
};
window.calls = async () => {
  const notices = [];
  const petstore = createClient({ baseUrl: '${api}', apiKey: '${key}', onDeprecation: (notice) => notices.push(notice.operationId) });
  const created = [];
  for (let i = 0; i < 7; i++) created.push(await petstore.createPet({ name: 'From the browser ' + i, categoryId: 4, status: 'pending' }));
  const paged = [];
  for await (const pet of petstore.paginate('listPets', { status: 'pending', limit: 3 })) paged.push(pet.id);
  const got = await petstore.getPet({ petId: created[0].id });
  await petstore.getPet({ petId: created[1].id });
  const failure = await petstore.getPet({ petId: 987654321 }).catch((error) => ({
    isApiError: error instanceof PetStoreApiError, code: error.code, status: error.status, requestId: error.requestId,
  }));
  return { created: created.map((pet) => pet.id), paged, got: got.id === created[0].id, notices, failure };
};
</script></body></html>`;

describe.skipIf(!existsSync(executablePath))('the client in a browser page, against a service on another origin', () => {
  let service: TestService;
  let app: Listening;
  let freeKey: string;
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  beforeAll(async () => {
    service = await startService(testDatabases[0]!, { clock });
    ({ key: freeKey } = await service.store.apiKeys.create({ plan: 'free' }));
    const html = page(service.base, service.apiKey, freeKey);
    app = await listen(async (req, res) => {
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      const module = /^\/modules\/(.+)\.js$/.exec(req.url ?? '')?.[1];
      if (module && modules[module]) return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(modules[module]));
      const file = join(dist, (req.url ?? '').replace(/^\/client\//, ''));
      if (!req.url?.startsWith('/client/') || !file.endsWith('.js') || !existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(file));
    });
  });
  afterAll(async () => {
    await app?.close();
    await service?.close();
  });

  it('calls, pages, retries and reports deprecation and errors cross-origin', { timeout: 60_000 }, async () => {
    expect(new URL(app.url).origin).not.toBe(new URL(service.url).origin);
    const profile = await mkdtemp(join(tmpdir(), 'petstore-client-browser-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-dev-shm-usage'],
    });
    try {
      const tab = context.pages()[0] ?? (await context.newPage());
      const errors: string[] = [];
      tab.on('pageerror', (error) => errors.push(String(error)));
      await tab.goto(`${app.url}/`);
      await tab.waitForFunction(() => 'calls' in globalThis);

      const calls = await tab.evaluate(() => (globalThis as unknown as { calls: () => Promise<Record<string, unknown>> }).calls());
      expect(errors).toEqual([]);
      expect(calls).toEqual({
        created: expect.any(Array),
        paged: calls.created,
        got: true,
        notices: ['getPet'],
        failure: { isApiError: true, code: 'not_found', status: 404, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      });
      expect(calls.created).toHaveLength(7);

      // The browser keeps a list answered with an ETag (Cache-Control: private, no-cache) and revalidates it: the
      // second read is a 304 behind the scenes, the same page to the page's code, and spends none of the window.
      const revalidated = await tab.evaluate(() =>
        (globalThis as unknown as { revalidated: () => Promise<{ same: boolean; remaining: number[] }> }).revalidated(),
      );
      expect(revalidated.same).toBe(true);
      expect(revalidated.remaining).toHaveLength(2);
      expect(revalidated.remaining[1]).toBe(revalidated.remaining[0]);

      // The service's minute now ends 8 s from here. 75 calls on a free key: 60 fit, and sent at once the other 15
      // would be refused in this minute and the 71st request would ban the key; the client waits for the next one.
      clock.offset = MINUTE - (Date.now() % MINUTE) - 8_000;
      const windowEnds = performance.now() + 8_000;
      const burst = await tab.evaluate(() =>
        (globalThis as unknown as { burst: () => Promise<{ answered: number; statuses: (number | string)[] }> }).burst(),
      );
      expect(performance.now()).toBeGreaterThanOrEqual(windowEnds - 100);
      expect(burst.answered).toBe(75);
      expect(burst.statuses.filter((status) => status === 200)).toHaveLength(75);
      expect(burst.statuses).not.toContain('api_key_banned');
      expect(burst.statuses.filter((status) => status === 'rate_limited').length).toBeLessThan(10);
    } finally {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    }
  });
});
