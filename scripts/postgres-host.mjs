// Run by check-packages.sh in a scratch host that installed the packed packages without @petstore/pglite, PGlite,
// ioredis or @opentelemetry/api: imports @petstore/embed, opens a store on DATABASE_URL and makes in-process calls (no
// tracing code runs); checks that the embedded database, the Redis store and a tracerProvider are refused with an
// error naming the package to install; prints the import time and the RSS as JSON.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';

await assert.rejects(import('@opentelemetry/api'), { code: 'ERR_MODULE_NOT_FOUND' }, 'the host has no OpenTelemetry API');
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
