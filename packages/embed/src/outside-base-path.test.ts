import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchHandler } from './create-fetch-handler.js';
import { openPetStore, type OpenPetStore } from './open-pet-store.js';

/** A host's logger that keeps what it is told. */
function keptLogger() {
  const lines: { level: string; fields: object; message: string }[] = [];
  const at = (level: string) => (fields: object, message: string) => void lines.push({ level, fields, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const warnings = (lines: ReturnType<typeof keptLogger>['lines']) => lines.filter((line) => line.level === 'warn');

describe('a Fetch handler that sees only paths outside its basePath', () => {
  let service: OpenPetStore;
  beforeAll(async () => {
    service = await openPetStore({ dataDir: 'memory://', rateLimitStore: 'none' });
  });
  afterAll(() => service.close());

  it("warns once through the host's logger, naming the basePath to give, when mounted under a prefix it was not given", async () => {
    const { lines, logger } = keptLogger();
    // A Hono route (app.all('/petstore/*', (c) => handler(c.req.raw))) or a Next.js route handler: the full path.
    const handler = createFetchHandler(service.store, { logger });
    for (const path of ['/petstore/v1/pets', '/petstore/healthz', '/petstore/v1/pets/1']) {
      expect((await handler(new Request(`https://app.example.com${path}`))).status).toBe(404);
    }
    expect(warnings(lines)).toEqual([
      {
        level: 'warn',
        fields: { path: '/petstore/v1/pets', basePath: '', mount: '/petstore' },
        message: expect.stringContaining("createFetchHandler(store, { basePath: '/petstore' })"),
      },
    ]);
    expect(warnings(lines)[0]!.message).toContain("outside its basePath ('')");
  });

  it('names the whole mount when it was given another basePath, and says it on the process without a logger', async () => {
    const told: Error[] = [];
    const listen = (warning: Error) => told.push(warning);
    process.on('warning', listen);
    try {
      const handler = createFetchHandler(service.store, { basePath: '/petstore' });
      expect((await handler(new Request('https://app.example.com/api/petstore/v1/pets'))).status).toBe(404);
      expect((await handler(new Request('https://app.example.com/api/petstore/v1/pets'))).status).toBe(404);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    const ours = told.filter((warning) => (warning as { code?: string }).code === 'PETSTORE_BASE_PATH');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.message).toContain("{ basePath: '/api/petstore' }");
  });

  it('never warns once it has served a path of its own, nor for paths that name none of its own', async () => {
    const { lines, logger } = keptLogger();
    const mounted = createFetchHandler(service.store, { basePath: '/petstore', logger });
    expect((await mounted(new Request('https://app.example.com/petstore/livez'))).status).toBe(200);
    expect((await mounted(new Request('https://app.example.com/elsewhere/v1/pets'))).status).toBe(404);
    const bare = createFetchHandler(service.store, { logger });
    expect((await bare(new Request('https://app.example.com/favicon.ico'))).status).toBe(404);
    expect((await bare(new Request('https://app.example.com/livez'))).status).toBe(200);
    expect((await bare(new Request('https://app.example.com/petstore/v1/pets'))).status).toBe(404);
    // Hono's app.mount cuts the prefix off: the handler given that prefix re-adds it, and is at home.
    const cut = createFetchHandler(service.store, { basePath: '/petstore', logger });
    expect((await cut(new Request('https://app.example.com/livez'))).status).toBe(200);
    expect((await cut(new Request('https://app.example.com/x/v1/pets'))).status).toBe(404);
    expect(warnings(lines)).toEqual([]);
  });
});
