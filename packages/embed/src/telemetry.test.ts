import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Pet, PetStoreMetrics } from '@petstore/core';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetchHandler, createHttpHandler, openPetStore, type HandlerOptions, type OpenPetStore } from './index.js';

const KEY = 'telemetry-test-key-0123456789';
const TIGHT = 'telemetry-tight-key-0123456789';
const apiKeys = [
  { key: KEY, plan: 'pro' as const },
  { key: TIGHT, plan: 'enterprise' as const, limits: { perMinute: 1, perDay: 100 } },
];
const AUTH = { authorization: `Bearer ${KEY}` };

const targets = [
  { name: 'the embedded database', open: async () => ({ options: { dataDir: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async open() {
            const scratch = await scratchPostgres();
            return { options: { databaseUrl: scratch.url }, drop: scratch.drop };
          },
        },
      ]
    : []),
];

async function serve(service: OpenPetStore, options: HandlerOptions = {}) {
  const server: Server = createServer(createHttpHandler(service.store, options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const named = (name: string) => exporter.getFinishedSpans().find((span) => span.name === name);

describe.each(targets)('telemetry of the pet store on $name', (target) => {
  let service: OpenPetStore;
  let drop: () => Promise<void>;
  let pet: Pet;
  const metrics = { served: [] as unknown[], limited: [] as unknown[], deprecated: [] as unknown[] };
  const hostMetrics: PetStoreMetrics = {
    requestServed: (request) => void metrics.served.push(request),
    rateLimited: (refusal) => void metrics.limited.push(refusal),
    deprecatedCall: (call) => void metrics.deprecated.push(call),
  };

  beforeAll(async () => {
    const opened = await target.open();
    drop = opened.drop;
    service = await openPetStore({ ...opened.options, apiKeys, metrics: hostMetrics });
    pet = (await service.store.createPet({ name: 'Traced', categoryId: 3 }, { apiKey: KEY })).data;
  });
  afterAll(async () => {
    await service.close();
    await drop();
  });

  describe('with no OpenTelemetry SDK registered', () => {
    it('makes no span, and the handler answers as always', async () => {
      // A tracer that found the SDK keeps it (OpenTelemetry's proxy), so spans of the stores opened before count not.
      exporter.reset();
      const server = await serve(service);
      try {
        const response = await fetch(`${server.url}/v1/pets/${pet.id}`, { headers: AUTH });
        expect(response.status).toBe(200);
        await service.store.listPets({ limit: 1 }, { apiKey: KEY });
        expect(exporter.getFinishedSpans()).toEqual([]);
        expect(trace.getActiveSpan()).toBeUndefined();
      } finally {
        await server.close();
      }
    });
  });

  describe('with an SDK registered', () => {
    beforeAll(() => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(provider);
    });
    afterAll(() => {
      trace.disable();
      propagation.disable();
      context.disable();
    });
    beforeEach(() => exporter.reset());

    it('makes one server span per REST request (HTTP semantic conventions), with the call and its query as children', async () => {
      const server = await serve(service);
      try {
        const response = await fetch(`${server.url}/v1/pets/${pet.id}?x=1`, { headers: AUTH });
        expect(response.status).toBe(200);
        const request = named('GET /v1/pets/{petId}')!;
        expect(request.kind).toBe(SpanKind.SERVER);
        expect(request.attributes).toMatchObject({
          'http.request.method': 'GET',
          'http.route': '/v1/pets/{petId}',
          'http.response.status_code': 200,
          'url.scheme': 'http',
          'url.path': `/v1/pets/${pet.id}`,
          'url.query': 'x=1',
          'client.address': '127.0.0.1',
          'server.address': '127.0.0.1',
          'petstore.operation.id': 'getPet',
          'petstore.key.id': expect.any(Number),
        });
        expect(request.status.code).toBe(SpanStatusCode.UNSET);
        expect(parentOf(request)).toBeUndefined();
        const call = named('getPet')!;
        expect(call.kind).toBe(SpanKind.INTERNAL);
        expect(call.attributes).toMatchObject({ 'petstore.operation.id': 'getPet', 'petstore.key.id': expect.any(Number) });
        expect(parentOf(call)).toBe(idOf(request));
        const query = named('SELECT pets')!;
        expect(query.kind).toBe(SpanKind.CLIENT);
        expect(query.attributes).toMatchObject({ 'db.system.name': 'postgresql', 'db.operation.name': 'SELECT', 'db.collection.name': 'pets' });
        expect(parentOf(query)).toBe(idOf(call));
        expect(new Set([request, call, query].map((span) => span.spanContext().traceId)).size).toBe(1);
      } finally {
        await server.close();
      }
    });

    it('makes a server span per tRPC request, on node:http and through the Fetch handler', async () => {
      const input = encodeURIComponent(JSON.stringify({ limit: 2 }));
      const server = await serve(service);
      try {
        expect((await fetch(`${server.url}/trpc/pets.list?input=${input}`, { headers: AUTH })).status).toBe(200);
      } finally {
        await server.close();
      }
      const fetchHandler = createFetchHandler(service.store);
      const batch = await fetchHandler(
        new Request(`https://api.example.com/trpc/pets.list,pets.get?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { limit: 1 }, 1: { petId: pet.id } }))}`, {
          headers: AUTH,
        }),
      );
      expect(batch.status).toBe(200);
      const servers = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
      expect(servers.map((span) => [span.name, span.attributes['http.route'], span.attributes['petstore.operation.id']])).toEqual([
        ['GET /trpc/pets.list', '/trpc/pets.list', 'listPets'],
        ['GET /trpc/{batch}', '/trpc/{batch}', 'listPets,getPet'],
      ]);
      expect(servers[1]!.attributes).toMatchObject({ 'url.scheme': 'https', 'server.address': 'api.example.com', 'http.response.status_code': 200 });
      const calls = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.INTERNAL);
      expect(calls.map((span) => [span.name, parentOf(span)])).toEqual(
        expect.arrayContaining([
          ['listPets', idOf(servers[0]!)],
          ['listPets', idOf(servers[1]!)],
          ['getPet', idOf(servers[1]!)],
        ]),
      );
    });

    it("puts the server span's trace_id and span_id on the request line, of a host's pino and of a logger with only info", async () => {
      const lines: string[] = [];
      const hostPino = pino({ base: { app: 'host' } }, { write: (line: string) => void lines.push(line) });
      const calls: object[] = [];
      const infoOnly = { info: (fields: object) => void calls.push(fields) }; // `info` is all a logger needs
      for (const logger of [hostPino, infoOnly]) {
        const server = await serve(service, { logger });
        try {
          expect((await fetch(`${server.url}/v1/pets?limit=1`, { headers: AUTH })).status).toBe(200);
        } finally {
          await server.close();
        }
      }
      const spans = exporter.getFinishedSpans().filter((span) => span.name === 'GET /v1/pets');
      expect(spans).toHaveLength(2);
      const ids = spans.map((span) => ({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId }));
      expect(JSON.parse(lines[0]!)).toMatchObject({ route: '/v1/pets', status: 200, ...ids[0] });
      expect(calls[0]).toMatchObject({ route: '/v1/pets', status: 200, ...ids[1] });
    });

    it('continues the trace an incoming traceparent names', async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      const server = await serve(service);
      try {
        const response = await fetch(`${server.url}/v1/pets?limit=1`, { headers: { ...AUTH, traceparent: `00-${traceId}-${parentId}-01` } });
        expect(response.status).toBe(200);
      } finally {
        await server.close();
      }
      const request = named('GET /v1/pets')!;
      expect(request.spanContext().traceId).toBe(traceId);
      expect(parentOf(request)).toBe(parentId);
      expect(named('listPets')!.spanContext().traceId).toBe(traceId);
    });

    it('makes a span for each in-process call, under the host span active at the time', async () => {
      const { data: created } = await service.store.createPet({ name: 'In process', categoryId: 4 }, { apiKey: KEY });
      const call = named('createPet')!;
      expect(call.attributes).toMatchObject({ 'petstore.operation.id': 'createPet', 'petstore.key.id': expect.any(Number) });
      expect(parentOf(call)).toBeUndefined();
      expect(parentOf(named('INSERT pets')!)).toBe(idOf(call));
      exporter.reset();
      await trace.getTracer('host').startActiveSpan('host work', async (host) => {
        await service.store.getPet({ petId: created.id }, { principal: { id: 'user:7', plan: 'free' } });
        host.end();
      });
      const hostSpan = named('host work')!;
      expect(parentOf(named('getPet')!)).toBe(idOf(hostSpan));
      expect(named('getPet')!.attributes).toMatchObject({ 'petstore.principal.id': 'user:7' });
    });

    it('marks 5xx answers as errors (error.type) and leaves client errors unset', async () => {
      const server = await serve(service);
      try {
        expect((await fetch(`${server.url}/v1/pets`)).status).toBe(401);
      } finally {
        await server.close();
      }
      const refused = named('GET /v1/pets')!;
      expect(refused.status.code).toBe(SpanStatusCode.UNSET);
      expect(refused.attributes['http.response.status_code']).toBe(401);
      expect(named('listPets')!.attributes).toMatchObject({ 'petstore.error.code': 'missing_api_key' });
      expect(named('listPets')!.status.code).toBe(SpanStatusCode.UNSET);
      exporter.reset();
      const closed = await openPetStore({ dataDir: 'memory://', apiKeys });
      await closed.database.close();
      const down = await serve(closed);
      try {
        expect((await fetch(`${down.url}/v1/pets`, { headers: AUTH })).status).toBe(503);
      } finally {
        await down.close();
        await closed.close().catch(() => {});
      }
      const failed = named('GET /v1/pets')!;
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed.attributes).toMatchObject({ 'http.response.status_code': 503, 'error.type': '503' });
      expect(named('listPets')!.status.code).toBe(SpanStatusCode.ERROR);
      expect(named('listPets')!.attributes).toMatchObject({ 'error.type': 'unavailable' });
    });
  });

  it("writes one line per request to a host's pino logger, and hands a logger of its own the same fields", async () => {
    const lines: string[] = [];
    const hostPino = pino({ base: { app: 'host' } }, { write: (line: string) => void lines.push(line) });
    const calls: [Record<string, unknown>, string][] = [];
    const ownLogger = { info: (fields: object, message: string) => void calls.push([fields as Record<string, unknown>, message]), warn() {}, error() {} };
    for (const logger of [hostPino, ownLogger]) {
      const server = await serve(service, { logger });
      try {
        const response = await fetch(`${server.url}/v1/pets/${pet.id}`, { headers: { ...AUTH, 'x-request-id': 'req-telemetry-1' } });
        expect(response.status).toBe(200);
        expect((await fetch(`${server.url}/v1/nowhere`)).status).toBe(404);
      } finally {
        await server.close();
      }
    }
    const expected = [
      { reqId: 'req-telemetry-1', method: 'GET', route: '/v1/pets/{petId}', status: 200, durationMs: expect.any(Number), keyId: expect.any(Number) },
      { reqId: expect.any(String), method: 'GET', route: 'unmatched', status: 404, durationMs: expect.any(Number) },
    ];
    expect(lines.map((line) => JSON.parse(line))).toEqual(expected.map((fields) => ({ level: 30, time: expect.any(Number), app: 'host', ...fields, msg: 'request' })));
    expect(calls).toEqual(expected.map((fields) => [fields, 'request']));
    expect(calls[1]![0]).not.toHaveProperty('keyId');
  });

  it("reports requests, 429s and deprecated calls to a host's metrics", async () => {
    const server = await serve(service, { metrics: hostMetrics });
    try {
      await fetch(`${server.url}/v1/pets/${pet.id}`, { headers: AUTH });
      await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${TIGHT}` } });
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${TIGHT}` } })).status).toBe(429);
    } finally {
      await server.close();
    }
    expect(metrics.served.slice(-3)).toEqual([
      { method: 'GET', route: '/v1/pets/{petId}', status: 200, seconds: expect.any(Number) },
      { method: 'GET', route: '/v1/pets', status: 200, seconds: expect.any(Number) },
      { method: 'GET', route: '/v1/pets', status: 429, seconds: expect.any(Number) },
    ]);
    expect(metrics.limited).toEqual([{ plan: 'enterprise', code: 'rate_limited' }]);
    expect(metrics.deprecated).toContainEqual({ operationId: 'getPet', keyId: expect.any(Number), plan: 'pro' });
  });
});
