import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, startProcess, type ListedKey, type ServerProcess } from './helpers.js';

// `petstore webhooks list | deliveries | redeliver` and `npx @petstore/cli webhooks …`, each the real program in a
// child process, as an operator runs them: on an embedded folder (through the running service's admin channel, then
// directly once it stops) and on PostgreSQL.
const hostCli = fileURLToPath(new URL('../../../packages/cli/bin/petstore-cli.js', import.meta.url));

/** A receiver on loopback: `/ok` answers 200, `/down` 500; every request kept with its path and headers. */
async function startReceiver() {
  const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(req.url === '/ok' ? 200 : 500).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise<void>((done) => server.close(() => done())) };
}

type Endpoint = { id: number; url: string; owner: { keyId: number; keyIds: number[]; label: string | null }; events: string[]; failingSince: string | null; disabledAt: string | null; pending: number };
type Delivery = { id: number; eventId: string; eventType: string; status: string; attempts: number; responseStatus: number | null; error: string | null; nextAttemptAt: string | null };

const targets = [
  {
    name: 'an embedded folder',
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-webhooks-'));
      return { env: { PETSTORE_DATA_DIR: dir }, host: ['--data-dir', dir], tearDown: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [
        {
          name: 'PostgreSQL',
          async setUp() {
            const db = await scratchPostgres();
            return { env: { DATABASE_URL: db.url }, host: ['--database-url', db.url], tearDown: db.drop };
          },
        },
      ]
    : []),
];

// The databases side by side; on each, one command after another (each test reads what the one before it found).
describe.concurrent.each(targets)('petstore webhooks on $name', (target) => {
  describe.sequential('one command after another', () => {
    let env: Record<string, string>;
    let host: string[];
    let tearDown: () => Promise<void>;
    let server: ServerProcess;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let secrets: string[];
    let up: Endpoint;
    let down: Endpoint;
    let firstKey: number;
    let rolledKey: number;

    const cli = async (...args: string[]) => runCli(args, env);
    const hostTool = async (...args: string[]) => runCli([...args, ...host], {}, hostCli);

    beforeAll(async () => {
      ({ env, host, tearDown } = await target.setUp());
      receiver = await startReceiver();
      // Retries far off: the failing endpoint's delivery stays pending, due again in a minute.
      server = await startProcess({ ...env, PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true', PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: '60000' });
      // Two owners; the first key is rolled, so its endpoint belongs to a lineage of two keys.
      const shop = (await cli('keys', 'create', '--plan', 'pro', '--label', 'shop')).stdout.trim();
      const warehouse = (await cli('keys', 'create', '--plan', 'pro', '--label', 'warehouse')).stdout.trim();
      const keys = JSON.parse((await cli('keys', 'list', '--json')).stdout) as ListedKey[];
      firstKey = keys.find((key) => key.label === 'shop')!.id;
      const rolled = await cli('keys', 'roll', String(firstKey), '--grace', '1h');
      expect(rolled.code, rolled.stderr).toBe(0);
      rolledKey = (JSON.parse((await cli('keys', 'list', '--json')).stdout) as ListedKey[]).find((key) => key.replacedBy === null && key.label === 'shop')!.id;
      const register = async (key: string, path: string) => {
        const response = await fetch(`${server.url}/v1/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${receiver.base}${path}`, events: ['pet.created'] }),
        });
        expect(response.status).toBe(201);
        return ((await response.json()) as { secret: string }).secret;
      };
      secrets = [await register(rolled.stdout.trim(), '/ok'), await register(warehouse, '/down')];
      const created = await fetch(`${server.url}/v1/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shop}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      });
      expect(created.status).toBe(201);
      await vi.waitFor(() => expect(receiver.received.map((r) => r.path).sort()).toEqual(['/down', '/ok']), { timeout: 10_000, interval: 50 });
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await tearDown?.();
    });

    it('lists every owner\'s endpoints with the key lineage that owns them, failing since when, and never a secret', async () => {
      let listed: Endpoint[] = [];
      // The failed attempt is recorded once its answer is in.
      await vi.waitFor(
        async () => {
          const json = await cli('webhooks', 'list', '--json');
          expect(json.code, json.stderr).toBe(0);
          listed = JSON.parse(json.stdout) as Endpoint[];
          expect(listed.find((e) => e.url.endsWith('/down'))?.failingSince).not.toBeNull();
        },
        { timeout: 10_000, interval: 200 },
      );
      up = listed.find((e) => e.url.endsWith('/ok'))!;
      down = listed.find((e) => e.url.endsWith('/down'))!;
      expect(up).toMatchObject({ owner: { keyId: firstKey, keyIds: [firstKey, rolledKey], label: 'shop' }, events: ['pet.created'], failingSince: null, disabledAt: null, pending: 0 });
      expect(down).toMatchObject({ owner: { label: 'warehouse' }, failingSince: expect.any(String), disabledAt: null, pending: 1 });

      const table = await cli('webhooks', 'list');
      expect(table.code, table.stderr).toBe(0);
      const [heading, ...rows] = table.stdout.trimEnd().split('\n');
      expect(heading).toMatch(/^ID\s+OWNER\s+KEYS\s+LABEL\s+URL\s+EVENTS\s+STATE\s+FAILING SINCE\s+PENDING\s+CREATED$/);
      expect(rows).toHaveLength(2);
      expect(rows.find((row) => row.includes('/ok'))).toMatch(new RegExp(`^${up.id}\\s+key ${firstKey}\\s+${firstKey},${rolledKey}\\s+shop\\s+\\S+/ok\\s+pet.created\\s+enabled\\s+-\\s+0\\s`));
      expect(rows.find((row) => row.includes('/down'))).toMatch(/\s+enabled\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+1\s/);

      // The hosts' tool lists the same, in the same table.
      const fromHost = await hostTool('webhooks', 'list');
      expect(fromHost.code, fromHost.stderr).toBe(0);
      expect(fromHost.stdout).toBe(table.stdout);
      for (const output of [table.stdout, (await cli('webhooks', 'list', '--json')).stdout, fromHost.stdout]) {
        expect(output).not.toContain('whsec_');
        for (const secret of secrets) expect(output).not.toContain(secret.slice(6, 20));
      }
    });

    it("prints an endpoint's deliveries newest first, with status, attempts, last status or error and next attempt", async () => {
      const json = await cli('webhooks', 'deliveries', String(down.id), '--json');
      expect(json.code, json.stderr).toBe(0);
      const [delivery] = JSON.parse(json.stdout) as Delivery[];
      expect(delivery).toMatchObject({ eventType: 'pet.created', status: 'pending', attempts: 1, responseStatus: 500, error: 'answered 500', nextAttemptAt: expect.any(String) });
      const table = await cli('webhooks', 'deliveries', String(down.id));
      expect(table.stdout).toMatch(/^ID\s+EVENT\s+TYPE\s+STATUS\s+ATTEMPTS\s+CREATED\s+LAST ATTEMPT\s+LAST STATUS\s+NEXT ATTEMPT\s+ERROR\n/);
      expect(table.stdout).toMatch(new RegExp(`\\n${delivery!.id}\\s+${delivery!.eventId}\\s+pet.created\\s+pending\\s+1\\s+\\S+\\s+\\S+\\s+500\\s+\\S+Z\\s+answered 500\\n$`));
      expect((await cli('webhooks', 'deliveries', String(down.id), '--status', 'delivered')).stdout).toBe(`No deliveries delivered for webhook endpoint ${down.id}.\n`);
      const fromHost = await hostTool('webhooks', 'deliveries', String(down.id), '--status', 'pending', '--json');
      expect(JSON.parse(fromHost.stdout)).toEqual(JSON.parse(json.stdout));
    });

    it('queues a delivery again, across owners: the receiver gets the same webhook-id a second time', async () => {
      const [delivered] = JSON.parse((await cli('webhooks', 'deliveries', String(up.id), '--json')).stdout) as Delivery[];
      expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 200 });
      const again = await cli('webhooks', 'redeliver', String(up.id), String(delivered!.id));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toMatch(new RegExp(`^Queued delivery \\d+: event ${delivered!.eventId} \\(pet.created\\) again to webhook endpoint ${up.id}`));
      const viaHost = await hostTool('webhooks', 'redeliver', String(up.id), String(delivered!.id));
      expect(viaHost.code, viaHost.stderr).toBe(0);
      // The service's worker finds them at its next poll (5 s).
      await vi.waitFor(() => expect(receiver.received.filter((r) => r.path === '/ok')).toHaveLength(3), { timeout: 12_000, interval: 100 });
      expect(new Set(receiver.received.filter((r) => r.path === '/ok').map((r) => r.headers['webhook-id']))).toEqual(new Set([delivered!.eventId]));
    });

    it('says so when an endpoint or a delivery is not there, and refuses a malformed id before opening anything', async () => {
      expect(await cli('webhooks', 'deliveries', '999999')).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining('No webhook endpoint 999999') });
      expect(await cli('webhooks', 'redeliver', String(up.id), '999999')).toMatchObject({ code: 2, stderr: expect.stringContaining(`No delivery 999999 of webhook endpoint ${up.id}`) });
      // Another endpoint's delivery is not this endpoint's.
      const [theirs] = JSON.parse((await cli('webhooks', 'deliveries', String(down.id), '--json')).stdout) as Delivery[];
      expect(await cli('webhooks', 'redeliver', String(up.id), String(theirs!.id))).toMatchObject({ code: 2 });
      expect(await hostTool('webhooks', 'deliveries', '999999')).toMatchObject({ code: 1, stderr: 'No webhook endpoint 999999 (see "webhooks list").\n' });
      expect(await cli('webhooks', 'deliveries', 'seven')).toMatchObject({ code: 2, stderr: expect.stringContaining('WEBHOOK_ID must be a whole number') });
      expect(await cli('webhooks', 'deliveries', '7', '--status', 'lost')).toMatchObject({ code: 2, stderr: expect.stringContaining('--status must be one of pending, delivered, failed') });
      expect(await hostTool('webhooks', 'redeliver', '7')).toMatchObject({ code: 2, stderr: expect.stringContaining('webhooks redeliver takes WEBHOOK_ID DELIVERY_ID') });
    });
  });
});

describe('petstore webhooks on an embedded folder no service runs on', () => {
  it('opens the folder itself, under its lock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-webhooks-stopped-'));
    try {
      const server = await startProcess({ PETSTORE_DATA_DIR: dir, PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true' });
      const key = (await runCli(['keys', 'create', '--plan', 'pro'], { PETSTORE_DATA_DIR: dir })).stdout.trim();
      const response = await fetch(`${server.url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hooks', events: ['order.placed'] }),
      });
      expect(response.status).toBe(201);
      await server.stop();
      const listed = await runCli(['webhooks', 'list'], { PETSTORE_DATA_DIR: dir });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/\s+http:\/\/127\.0\.0\.1:9\/hooks\s+order\.placed\s+enabled\s/);
      const fromHost = await runCli(['webhooks', 'list', '--data-dir', dir], {}, hostCli);
      expect(fromHost.stdout).toBe(listed.stdout);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
