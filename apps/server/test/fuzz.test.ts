import { Agent, request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

// CI runs a fixed seed; `FUZZ_RUNS=20000 npx vitest run apps/server/test/fuzz.test.ts` runs longer with a random
// seed, which it prints (set FUZZ_SEED to replay one).
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_RUNS ? Date.now() % 2 ** 31 : 20261123;
const KEY = 'fuzz-enterprise-key-0123456789';
// A few addresses the valid key shares with made-up keys, limited low enough that made-up keys hold them over it.
const SHARED = ['203.0.113.200', '203.0.113.201'];
const PER_ADDRESS = 20;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(url: string, sent: Sent): Promise<Answer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, method: sent.method, path: sent.path, headers: sent.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(sent.body);
  });
}

// What a client may send: methods, paths (the service's own, near misses and noise), queries, headers and bodies.
const methods = fc.constantFrom('GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'ACL', 'PROPFIND');
const segment = fc.oneof(
  fc.constantFrom('pets', 'v1', 'trpc', 'docs', 'openapi.json', '1', '0', '-1', 'abc', '%E0%A4%A', '%00', '..', '%2F', '9007199254740993'),
  fc.string({ maxLength: 8 }).map(encodeURIComponent),
);
const procedure = fc.constantFrom('pets.list', 'pets.page', 'pets.create', 'pets.get', 'pets.delete', 'nope', 'pets.list.x', '', 'toString', '__proto__');
const basePath = fc.oneof(
  fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/pets/2', '/v1/pets/abc', '/v1/pets/', '/v1', '/v1/', '/v1/openapi.json', '/v1/docs', '/v1/docs/', '/healthz', '/livez', '/metrics', '/trpc', '/trpc/', '/'),
  procedure.map((name) => `/trpc/${name}`),
  fc.array(procedure, { minLength: 1, maxLength: 3 }).map((names) => `/trpc/${names.join(',')}`),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
);
const json = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value));
const petLike = fc
  .record(
    {
      name: fc.oneof(fc.string({ maxLength: 10 }), fc.constant('\ud800'), fc.integer(), fc.constant(null)),
      categoryId: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constant('1'), fc.double(), fc.constant(2 ** 53)),
      status: fc.constantFrom('available', 'pending', 'sold', 'lost', 1),
      id: fc.integer(),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));
const input = fc.oneof(json, petLike, fc.string({ maxLength: 20 }), fc.constant('{"0":{"limit":1},"1":{"petId":1}}'));
const queryPart = fc.oneof(
  fc.constantFrom('limit=1', 'limit=0', 'limit=101', 'limit=abc', 'limit=5&limit=6', 'status=sold', 'status=lost', 'cursor=zz', 'batch=1', 'batch=0'),
  input.map((text) => `input=${encodeURIComponent(text)}`),
  fc.tuple(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 })).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`),
);
const query = fc.array(queryPart, { maxLength: 3 }).map((parts) => (parts.length ? `?${parts.join('&')}` : ''));
const headerValue = fc.string({ maxLength: 30 }).map((text) => text.replace(/[^\x20-\x7e]/g, ''));
const headers = fc.record(
  {
    authorization: fc.oneof(
      fc.constant(`Bearer ${KEY}`),
      fc.constant(`Bearer ${KEY}`),
      fc.constant('Bearer psk_nope'),
      fc.stringMatching(/^[0-9A-Za-z_]{20,44}$/).map((made) => `Bearer ${made}`),
      fc.constant('Basic abc'),
      headerValue,
    ),
    'content-type': fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'multipart/form-data; boundary=x', 'application/octet-stream'), headerValue),
    'x-forwarded-for': fc.oneof(fc.ipV4(), fc.constantFrom(...SHARED), headerValue),
    'x-forwarded-proto': fc.constantFrom('https', 'http', 'javascript', 'ftp'),
    'x-forwarded-host': fc.oneof(fc.domain(), headerValue),
    'x-request-id': headerValue,
    'idempotency-key': headerValue,
    'trpc-accept': fc.constantFrom('application/jsonl', 'text/event-stream'),
    'content-encoding': fc.constantFrom('gzip', 'identity'),
  },
  { requiredKeys: [] },
);
const body = fc.option(fc.oneof(input, fc.constant('x'.repeat(70_000))), { nil: undefined });
const anyRequest: fc.Arbitrary<Sent> = fc
  .record({ method: methods, path: basePath, query, headers, body })
  .map(({ method, path, query, headers, body }) => {
    const sent = method === 'GET' || method === 'HEAD' ? undefined : body;
    return {
      method,
      path: `${path}${query}`,
      headers: sent === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(sent)) },
      body: sent,
    };
  });

// The client of the valid key, calling as documented from an address it shares with the made-up keys above.
const keyClient: fc.Arbitrary<Sent> = fc
  .record({ from: fc.constantFrom(...SHARED), path: fc.constantFrom('/v1/pets?limit=1', '/v1/pets', '/trpc/pets.list?input=%7B%7D') })
  .map(({ from, path }) => ({ method: 'GET', path, headers: { authorization: `Bearer ${KEY}`, 'x-forwarded-for': from }, body: undefined }));
const requests = fc.oneof({ arbitrary: anyRequest, weight: 5 }, { arbitrary: keyClient, weight: 1 });

// The statuses each part of the service may answer with (DECISIONS' error table, plus its successes). A method
// the documents do not answer is counted like any request under /v1, so it may meet the address limit (429).
const REST = [200, 201, 400, 401, 404, 405, 409, 410, 413, 415, 429];
const TRPC = [200, 207, 400, 401, 404, 405, 409, 410, 413, 415, 429];
const allowedStatuses = (path: string): number[] => {
  if (path.startsWith('/v1/docs')) return [200, 301, 404, 405, 429];
  if (path === '/v1/openapi.json' || path.startsWith('/v1/openapi.json?')) return [200, 405, 429];
  if (path === '/v1' || path.startsWith('/v1/') || path.startsWith('/v1?')) return REST;
  if (path === '/trpc' || path.startsWith('/trpc/') || path.startsWith('/trpc?')) return TRPC;
  // /healthz counts against the address as a request without a key does; /livez against nothing.
  if (/^\/healthz(\?|$)/.test(path)) return [200, 405, 429];
  if (/^\/livez(\?|$)/.test(path)) return [200, 405];
  return [404];
};
const LEAK = /\bat [\w.<>]+ \(|\.[cm]?[jt]s:\d+|node_modules|\/work\/|\bselect\b.+\bfrom\b|\binsert into\b|relation "|syntaxerror|typeerror/i;

describe('a property-based fuzz of the HTTP edge, REST and tRPC', () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: '0',
        PETSTORE_DATA_DIR: 'memory://',
        PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:10000000`,
        PETSTORE_ADDRESS_LIMIT_PER_MINUTE: String(PER_ADDRESS),
        PETSTORE_TRUST_PROXY: 'true',
        PETSTORE_PUBLIC_URL: 'https://api.example.com/v1',
      }),
    );
  });
  afterAll(async () => {
    agent.destroy();
    await running.close();
  });

  it(`answers ${RUNS} random requests within the contract (seed ${SEED})`, { timeout: 600_000 }, async () => {
    if (process.env.FUZZ_RUNS) process.stdout.write(`fuzz seed: ${SEED} (replay with FUZZ_SEED=${SEED})\n`);
    // The address rule of DECISIONS "Gaps in limits": once the valid key has succeeded from an address (the same
    // X-Forwarded-For, so the same address), no answer to it from there is a 429, however many made-up keys come.
    const succeededFrom = new Set<string | undefined>();
    const overLimitIn = new Map<string | undefined, number>();
    let servedWhileOver = 0;
    await fc.assert(
      fc.asyncProperty(requests, async (sent) => {
        const answer = await send(running.url, sent);
        const where = `${sent.method} ${sent.path} → ${answer.status} ${answer.body.slice(0, 200)}`;
        const from = sent.headers['x-forwarded-for'];
        const minute = Math.floor(Date.now() / 60_000);
        if (sent.headers.authorization === `Bearer ${KEY}`) {
          if (succeededFrom.has(from)) {
            expect(answer.status, `the key, known at ${from}: ${where}`).not.toBe(429);
            if (overLimitIn.get(from) === minute) servedWhileOver++;
          }
          const operation = /^\/(v1\/pets|trpc\/pets)/.test(sent.path) && ['GET', 'HEAD', 'POST'].includes(sent.method);
          if (operation && (answer.status === 200 || answer.status === 201)) succeededFrom.add(from);
        } else if (answer.status === 429) {
          overLimitIn.set(from, minute);
        }
        expect(answer.status, where).toBeLessThan(500);
        expect(allowedStatuses(sent.path), where).toContain(answer.status);
        expect(answer.body, where).not.toMatch(LEAK);
        const type = String(answer.headers['content-type'] ?? '');
        let parsed: unknown;
        try {
          parsed = answer.body === '' ? undefined : JSON.parse(answer.body);
        } catch {
          parsed = undefined;
        }
        if (parsed !== undefined && !sent.path.startsWith('/v1/docs')) expect(type, where).toMatch(/^application\/json(;|$)/);
        if (/^application\/json(;|$)/.test(type) && sent.method !== 'HEAD') expect(parsed, where).toBeDefined();
        const rest = /^\/v1(\/|\?|$)/.test(sent.path) && !sent.path.startsWith('/v1/docs');
        if (rest && answer.status >= 400 && sent.method !== 'HEAD') {
          const error = parsed as Record<string, unknown>;
          const keys = Object.keys(error).sort();
          expect(keys, where).toEqual(error['details'] ? ['code', 'details', 'message', 'status'] : ['code', 'message', 'status']);
          expect(error['status'], where).toBe(answer.status);
        }
        expect(answer.headers['x-request-id'], where).toBeDefined();
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    // The run held an address over its limit while the key kept working from it.
    if (process.env.FUZZ_RUNS) process.stdout.write(`fuzz: the key was served ${servedWhileOver} times from an address over its limit\n`);
    if (RUNS >= 1000) expect(servedWhileOver).toBeGreaterThan(0);
    // From an address of its own: the run may have put any of its addresses over their limit.
    const health = await fetch(`${running.url}/healthz`, { headers: { 'x-forwarded-for': '192.0.2.250' } });
    expect(health.status).toBe(200);
  });
});
