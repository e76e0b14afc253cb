// Run by check-packages.sh in the scratch host on PostgreSQL after it has installed its own pg, pino, @trpc/client
// and OpenTelemetry (the API, which the packages peer, an SDK and a context manager): the store on the host's
// pg.Pool in a schema of the host's choosing, the host's pino logger writing to a stream read back here, and the
// host's tracer provider with an in-memory exporter. It serves REST and tRPC over node:http (port 0), calls them
// with fetch and @trpc/client, makes in-process calls, and checks the rows, the request log lines and the spans.
import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { Writable } from 'node:stream';
import { context, propagation, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateApiKey } from '@petstore/core';
import { createHttpHandler, openPetStore } from '@petstore/embed';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import pg from 'pg';
import { pino } from 'pino';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const lines = [];
const logged = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line));
    done();
  },
});
const logger = pino({ base: { app: 'host' } }, logged);

const schema = `host_petstore_${randomBytes(4).toString('hex')}`;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const apiKey = generateApiKey();
const service = await openPetStore({ pool, schema, apiKeys: [{ key: apiKey, plan: 'pro' }], tracerProvider });
const server = createServer(createHttpHandler(service.store, { logger, tracerProvider }));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}`;
const authorization = `Bearer ${apiKey}`;
const name = (what) => `${what}-${randomBytes(3).toString('hex')}`;

try {
  // REST, with the trace context of a caller of the host.
  const traceId = randomBytes(16).toString('hex');
  const created = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json', traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    body: JSON.stringify({ name: name('Rest'), categoryId: 1 }),
  });
  assert.equal(created.status, 201, 'REST creates a pet');
  const restPet = await created.json();
  const read = await fetch(`${url}/v1/pets/${restPet.id}`, { headers: { authorization } });
  assert.equal(read.status, 200, 'REST reads it back');

  // tRPC, with the real client.
  const trpc = createTRPCClient({ links: [httpBatchLink({ url: `${url}/trpc`, headers: { authorization } })] });
  const trpcPet = await trpc.pets.create.mutate({ name: name('Trpc'), categoryId: 2 });
  assert.equal((await trpc.pets.get.query({ petId: trpcPet.id })).name, trpcPet.name, 'tRPC reads its pet back');

  // In process.
  const { data: inProcessPet } = await service.store.createPet({ name: name('InProcess'), categoryId: 3 }, { apiKey });
  const { data: listed } = await service.store.listPets({ limit: 100 }, { apiKey });
  assert.deepEqual(
    [restPet.id, trpcPet.id, inProcessPet.id].filter((id) => listed.some((pet) => pet.id === id)).length,
    3,
    'the in-process list has the pets made over REST, tRPC and in process',
  );

  // The rows: in the host's schema, not in public.
  const names = [restPet.name, trpcPet.name, inProcessPet.name];
  const { rows: mine } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".pets WHERE name = ANY($1)`, [names]);
  assert.equal(mine[0].n, 3, `the three pets are in the schema ${schema}`);
  const { rows: inPublic } = await pool.query(`SELECT to_regclass('public.pets') IS NOT NULL AS present`);
  if (inPublic[0].present) {
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM public.pets WHERE name = ANY($1)', [names]);
    assert.equal(rows[0].n, 0, 'none of them is in public');
  }

  // The host's logger: one line per request answered, with the route template, status and key id.
  const requestLine = lines.find((line) => line.msg === 'request' && line.route === '/v1/pets/{petId}');
  assert.ok(requestLine, `a request line for GET /v1/pets/{petId} arrived (lines: ${JSON.stringify(lines)})`);
  assert.equal(requestLine.status, 200);
  assert.equal(requestLine.method, 'GET');
  assert.equal(typeof requestLine.keyId, 'number', 'the line names the key id');
  assert.equal(requestLine.app, 'host', "the line went through the host's own logger");
  assert.ok(!JSON.stringify(lines).includes(apiKey), 'no line holds the key');

  // The host's SDK: server spans with http.route, the calls and the database spans beneath them.
  const spans = exporter.getFinishedSpans();
  const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
  const routeOf = (span) => span.attributes['http.route'];
  const post = servers.find((span) => span.name === 'POST /v1/pets');
  assert.ok(post, `a server span for POST /v1/pets (spans: ${spans.map((span) => span.name).join(', ')})`);
  assert.equal(routeOf(post), '/v1/pets');
  assert.equal(post.attributes['http.response.status_code'], 201);
  assert.equal(post.spanContext().traceId, traceId, "the REST request's span continues the caller's traceparent");
  assert.ok(servers.some((span) => routeOf(span) === '/v1/pets/{petId}'), 'a server span for GET /v1/pets/{petId}');
  assert.ok(servers.some((span) => String(routeOf(span)).startsWith('/trpc/')), 'a server span for the tRPC requests');
  const database = spans.filter((span) => span.kind === SpanKind.CLIENT && span.attributes['db.system.name'] === 'postgresql');
  const insertUnderPost = database.find((span) => span.name === 'INSERT pets' && span.spanContext().traceId === traceId);
  assert.ok(insertUnderPost, "the REST create's INSERT is a database span in the caller's trace");
  assert.ok(spans.some((span) => span.name === 'createPet' && span.kind === SpanKind.INTERNAL && !span.parentSpanContext), 'the in-process create is a span of its own');
  console.log(
    JSON.stringify({ schema, requestLines: lines.filter((line) => line.msg === 'request').length, spans: spans.length, serverSpans: servers.length, databaseSpans: database.length }),
  );
} finally {
  await new Promise((resolve) => server.close(resolve));
  await service.close();
  const { rows } = await pool.query('SELECT 1 AS alive');
  assert.equal(rows[0].alive, 1, "closing the store leaves the host's pool open");
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.end();
  await tracerProvider.shutdown();
}
