import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createObservability } from '../src/observability.js';
import { startServer, type RunningServer } from '../src/server.js';

const KEY = 'webhook-metrics-key-0123456789abcdef';

/** A receiver on loopback: `/held` answers only once `release()` is called, `/down` 500, `/moved` a redirect. */
async function startReceiver() {
  const held: ServerResponse[] = [];
  let releasing = false;
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      if (req.url === '/held') return releasing ? res.writeHead(204).end() : held.push(res);
      if (req.url === '/moved') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      res.writeHead(500).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    release() {
      releasing = true;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** One value of a metrics page: the sample named, with its labels as printed. */
const sample = (page: string, series: string): number | undefined => {
  const line = page.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

const targets = [
  { name: 'the embedded database', setUp: async () => ({ env: { PETSTORE_DATA_DIR: 'memory://' }, drop: async () => {} }) },
  ...(databaseUrl
    ? [{ name: 'PostgreSQL', setUp: async () => { const db = await scratchPostgres(); return { env: { DATABASE_URL: db.url }, drop: db.drop }; } }]
    : []),
];

describe.each(targets)('webhook metrics of a running server on $name', (target) => {
  let running: RunningServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let drop: () => Promise<void>;
  const scrape = async () => {
    const response = await fetch(`${running.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };
  const post = (path: string, body: unknown) =>
    fetch(`${running.url}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    const { env, drop: dropIt } = await target.setUp();
    drop = dropIt;
    receiver = await startReceiver();
    running = await startServer(
      loadConfig({
        ...env,
        PORT: '0',
        PETSTORE_METRICS_PORT: '0',
        PETSTORE_API_KEYS: `${KEY}:enterprise`,
        PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        // Two retries 50 ms apart, then failed.
        PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: '50,50',
      }),
      { logger: pino({ level: 'silent' }) },
    );
  });
  afterAll(async () => {
    receiver?.release();
    await running?.close();
    await receiver?.close();
    await drop?.();
  });

  it('counts attempts by outcome and refusals by reason, and shows the backlog rise and fall, with no endpoint label', async () => {
    const before = await scrape();
    expect(sample(before, 'petstore_webhook_deliveries_pending')).toBe(0);
    expect(sample(before, 'petstore_webhook_oldest_pending_seconds')).toBe(0);
    for (const outcome of ['delivered', 'retrying', 'failed']) expect(sample(before, `petstore_webhook_attempts_total{outcome="${outcome}"}`)).toBe(0);
    for (const reason of ['scheme', 'address', 'dns', 'redirect']) expect(sample(before, `petstore_webhook_refusals_total{reason="${reason}"}`)).toBe(0);

    for (const path of ['/held', '/down', '/moved']) expect((await post('/webhooks', { url: `${receiver.base}${path}`, events: ['pet.created'] })).status).toBe(201);
    expect((await post('/pets', { name: 'Rex', categoryId: 1 })).status).toBe(201);

    // The failing and the redirecting endpoints: two retries each, then failed; each redirect refused.
    await vi.waitFor(async () => expect(sample(await scrape(), 'petstore_webhook_attempts_total{outcome="failed"}')).toBe(2), { timeout: 10_000, interval: 50 });
    const failing = await scrape();
    expect(sample(failing, 'petstore_webhook_attempts_total{outcome="retrying"}')).toBe(4);
    expect(sample(failing, 'petstore_webhook_attempts_total{outcome="delivered"}')).toBe(0);
    expect(sample(failing, 'petstore_webhook_refusals_total{reason="redirect"}')).toBe(3);
    expect(sample(failing, 'petstore_webhook_refusals_total{reason="address"}')).toBe(0);

    // The held delivery is pending, and ages.
    expect(receiver.held).toHaveLength(1);
    await vi.waitFor(async () => expect(sample(await scrape(), 'petstore_webhook_oldest_pending_seconds')).toBeGreaterThanOrEqual(1), { timeout: 5_000, interval: 100 });
    const waiting = await scrape();
    expect(sample(waiting, 'petstore_webhook_deliveries_pending')).toBe(1);
    expect(waiting).not.toMatch(/petstore_webhook_[a-z_]+\{[^}]*(endpoint|webhook|url)=/);

    receiver.release();
    await vi.waitFor(async () => expect(sample(await scrape(), 'petstore_webhook_attempts_total{outcome="delivered"}')).toBe(1), { timeout: 5_000, interval: 50 });
    const after = await scrape();
    expect(sample(after, 'petstore_webhook_deliveries_pending')).toBe(0);
    expect(sample(after, 'petstore_webhook_oldest_pending_seconds')).toBe(0);
  });
});

describe('the webhook backlog gauges when the database does not answer', () => {
  it('are NaN for that scrape, which is served whole and on time; one statement at a time however many scrapes', async () => {
    const observability = createObservability({ logger: pino({ level: 'silent' }) });
    let asked = 0;
    let answer: (backlog: { pending: number; oldestPendingSeconds: number }) => void = () => {};
    let down = true;
    observability.watchWebhookBacklog(
      () => {
        asked++;
        return down ? new Promise((resolve) => (answer = resolve)) : Promise.resolve({ pending: 3, oldestPendingSeconds: 42 });
      },
      { timeoutMs: 100 },
    );
    const started = Date.now();
    const [first, second] = await Promise.all([observability.registry.metrics(), observability.registry.metrics()]);
    expect(Date.now() - started).toBeLessThan(1_000);
    for (const page of [first, second]) {
      // prom-client writes NaN as `Nan`, which Prometheus reads (it ignores the case).
      expect(page).toMatch(/^petstore_webhook_deliveries_pending nan$/im);
      expect(page).toMatch(/^petstore_webhook_oldest_pending_seconds nan$/im);
      expect(page).toContain('petstore_build_info{version=');
    }
    // Still out: the next scrape asks nothing more.
    await observability.registry.metrics();
    expect(asked).toBe(1);
    // Back: the statement left out answers, and the next scrape asks again.
    down = false;
    answer({ pending: 1, oldestPendingSeconds: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    const page = await observability.registry.metrics();
    expect(asked).toBe(2);
    expect(sample(page, 'petstore_webhook_deliveries_pending')).toBe(3);
    expect(sample(page, 'petstore_webhook_oldest_pending_seconds')).toBe(42);
  });

  it('are NaN for a scrape whose statement fails, and the page is served', async () => {
    const observability = createObservability({ logger: pino({ level: 'silent' }) });
    observability.watchWebhookBacklog(() => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })));
    const page = await observability.registry.metrics();
    expect(page).toMatch(/^petstore_webhook_deliveries_pending nan$/im);
    expect(page).toContain('petstore_build_info{version=');
  });
});
