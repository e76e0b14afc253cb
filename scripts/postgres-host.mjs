// Run by check-packages.sh in a scratch host that installed the packed packages without @petstore/pglite, PGlite,
// ioredis, @opentelemetry/api or @trpc/server: imports @petstore/embed, opens a store on DATABASE_URL and makes
// in-process calls (no tracing code runs); serves REST over HTTP, with /trpc the API's 404 and one warning naming
// @trpc/server; checks that the embedded database, the Redis store and a tracerProvider are refused with an
// error naming the package to install; prints the import time and the RSS as JSON.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';

import { once } from 'node:events';
import { createServer } from 'node:http';

await assert.rejects(import('@opentelemetry/api'), { code: 'ERR_MODULE_NOT_FOUND' }, 'the host has no OpenTelemetry API');
await assert.rejects(import('@trpc/server'), { code: 'ERR_MODULE_NOT_FOUND' }, 'the host has no tRPC server');
const started = performance.now();
const { createHttpHandler, openPetStore } = await import('@petstore/embed');
const importMs = performance.now() - started;
const importRss = process.memoryUsage().rss;

const { generateApiKey } = await import('@petstore/core');
const apiKey = generateApiKey();
const { store, close } = await openPetStore({ databaseUrl: process.env.DATABASE_URL, apiKeys: [{ key: apiKey, plan: 'pro' }] });
const name = `Host-${randomBytes(4).toString('hex')}`;
const { data: pet } = await store.createPet({ name, categoryId: 1 }, { apiKey });
const { data: pets } = await store.listPets({ limit: 20 }, { apiKey });
assert.ok(pets.length > 0, 'a page of pets is listed');
const { data: read } = await store.getPet({ petId: pet.id }, { apiKey });
assert.equal(read.name, name, 'the pet just created reads back');
const withoutApi = /needs the package @opentelemetry\/api, which is not installed: npm install @opentelemetry\/api/;
const tracerProvider = { getTracer: () => ({}) };
assert.throws(() => createHttpHandler(store, { tracerProvider }), withoutApi);

// Over HTTP without tRPC installed: REST and the probes as usual, /trpc the API's 404, and one warning with the fix.
const warnings = [];
process.on('warning', (warning) => warnings.push(warning));
const server = createServer(createHttpHandler(store)).listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${server.address().port}`;
const auth = { authorization: `Bearer ${apiKey}` };
const health = await (await fetch(`${base}/healthz`)).json();
assert.equal(health.status, 'ok', '/healthz answers');
assert.match(health.version, /^\d+\.\d+\.\d+/, "/healthz names the release");
assert.equal((await fetch(`${base}/v1/pets/${pet.id}`, { headers: auth })).status, 200, 'REST serves');
for (let i = 0; i < 2; i++) {
  const trpc = await fetch(`${base}/trpc/pets.list?input=%7B%7D`, { headers: auth });
  assert.equal(trpc.status, 404, '/trpc is not served without @trpc/server');
  assert.equal((await trpc.json()).code, 'not_found');
}
await new Promise((resolve) => setImmediate(resolve));
const missing = warnings.filter((warning) => warning.code === 'PETSTORE_TRPC_MISSING');
assert.equal(missing.length, 1, 'one warning that tRPC is not served');
assert.match(missing[0].message, /npm install @trpc\/server/);
server.close();
await close();
const rss = process.memoryUsage().rss;

await assert.rejects(openPetStore({ dataDir: 'memory://' }), /needs the package @petstore\/pglite, which is not installed: npm install @petstore\/pglite/);
await assert.rejects(
  openPetStore({ databaseUrl: process.env.DATABASE_URL, rateLimitStore: 'redis', redisUrl: 'redis://127.0.0.1:9' }),
  /needs the package ioredis, which is not installed: npm install ioredis/,
);
await assert.rejects(openPetStore({ databaseUrl: process.env.DATABASE_URL, tracerProvider }), withoutApi);
const mb = (bytes) => Math.round(bytes / 2 ** 20);
console.log(JSON.stringify({ importMs: Math.round(importMs), importRssMb: mb(importRss), rssAfterCallsMb: mb(rss) }));
