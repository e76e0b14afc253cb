import { testDatabases } from '@petstore/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookRepository, type WebhookRepository } from './webhook-repository.js';

// A send that outlived its lease: the delivery was taken again by another instance (or the restart) meanwhile.
describe.each(testDatabases)('a late attempt on $name', (database) => {
  let opened: Awaited<ReturnType<typeof database.open>>;
  let repository: WebhookRepository;
  let at = Date.parse('2026-12-04T00:00:00Z');
  const LEASE_MS = 20_000;
  const claim = async () => {
    const [taken] = await repository.claim(1, new Date(at), new Date(at + LEASE_MS));
    return taken!;
  };
  const row = async () =>
    (await sql<{ status: string; attempts: number; lease_until: Date | null }>`select status, attempts, lease_until from webhook_deliveries`.execute(opened.db)).rows[0]!;

  beforeAll(async () => {
    opened = await database.open();
    repository = createWebhookRepository(opened.db);
    const endpoint = (await repository.create('k:1', { url: 'https://shop.example/hooks', events: ['pet.created'], secret: 'whsec_c2hvcHNlY3JldA==' }, new Date(at), 10))!;
    await sql`insert into webhook_events (id, type, data) values ('evt_late', 'pet.created', '{}'::jsonb)`.execute(opened.db);
    await sql`insert into webhook_deliveries (endpoint_id, event_id) values (${endpoint.webhook.id}, 'evt_late')`.execute(opened.db);
  });
  afterAll(() => opened?.close());

  it('changes nothing when it failed, and the attempt that took it over decides', async () => {
    const first = await claim();
    at += LEASE_MS + 1;
    const second = await claim();
    expect([first.attempt, second.attempt]).toEqual([1, 2]);
    // The first send's failure comes in late: the second's lease stands, and nothing else may take it.
    const failed = { ok: false as const, status: 500, error: 'answered 500', retryAt: new Date(at + 5_000) };
    expect(await repository.settle(first, failed, new Date(at), new Date(at - 1e9))).toEqual({ disabled: false });
    expect(await row()).toMatchObject({ status: 'pending', attempts: 2 });
    expect((await row()).lease_until).not.toBeNull();
    expect(await repository.claim(1, new Date(at + 10_000), new Date(at + 10_000 + LEASE_MS))).toEqual([]);
    await repository.settle(second, { ok: true, status: 200 }, new Date(at), new Date(at - 1e9));
    expect(await row()).toMatchObject({ status: 'delivered', attempts: 2, lease_until: null });
    // A failure after the delivery is recorded does not make it pending again.
    await repository.settle(second, failed, new Date(at), new Date(at - 1e9));
    expect(await row()).toMatchObject({ status: 'delivered' });
  });
});
