import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess } from './helpers.js';

const sdk = fileURLToPath(new URL('./fixtures/otel-sdk.mjs', import.meta.url));
const KEY = 'tracing-key-0123456789abc';
const folders: string[] = [];
afterAll(() => Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true }))));

interface ExportedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

describe('the service traces through an SDK registered before it starts', () => {
  it('exports a server span per request, with the call and the table query below it, continuing traceparent', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-tracing-'));
    folders.push(folder);
    const spansFile = join(folder, 'spans.jsonl');
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, SPANS_FILE: spansFile }, ['--import', sdk]);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    try {
      const response = await fetch(`${server.url}/v1/pets?limit=5`, {
        headers: { authorization: `Bearer ${KEY}`, traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
      });
      expect(response.status).toBe(200);
    } finally {
      await server.stop();
    }
    const spans = (await readFile(spansFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as ExportedSpan);
    const serverSpan = spans.find((span) => span.name === 'GET /v1/pets');
    expect(serverSpan, JSON.stringify(spans)).toBeDefined();
    expect(serverSpan!.traceId).toBe(traceId);
    expect(serverSpan!.parentSpanId).toBe('00f067aa0ba902b7');
    expect(serverSpan!.attributes).toMatchObject({ 'http.route': '/v1/pets', 'http.response.status_code': 200, 'petstore.operation.id': 'listPets' });
    const call = spans.find((span) => span.name === 'listPets');
    expect(call?.parentSpanId).toBe(serverSpan!.spanId);
    const query = spans.find((span) => span.name === 'SELECT pets');
    expect(query?.parentSpanId).toBe(call!.spanId);
    expect(spans.some((span) => span.name === 'petstore.probe')).toBe(false);
  });
});
