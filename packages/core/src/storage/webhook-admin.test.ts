import { testDatabases } from '@petstore/testing';
import { sql, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookAdmin } from './webhook-admin.js';
import { createWebhookRepository } from './webhook-repository.js';

describe.each(testDatabases)("the operator's view of the webhooks on $name", (database) => {
  let opened: Awaited<ReturnType<typeof database.open>>;
  let ids: { shop: number; partner: number; delivery: number };

  beforeAll(async () => {
    opened = await database.open();
    const repository = createWebhookRepository(opened.db);
    const now = new Date();
    const shop = (await repository.create('k:3', { url: 'https://shop.example/hooks', events: ['pet.created'], secret: 'whsec_c2hvcHNlY3JldA==' }, now, 10))!;
    const partner = (await repository.create('p:acme', { url: 'https://acme.example/hooks', events: ['order.placed'], secret: 'whsec_YWNtZXNlY3JldA==' }, now, 10))!;
    // 300 events of the shop's, pending: the backlog below is read from them.
    await sql`insert into webhook_events (id, type, data) select 'evt_' || n, 'pet.created', '{}'::jsonb from generate_series(1, 300) n`.execute(opened.db);
    await sql`insert into webhook_deliveries (endpoint_id, event_id) select ${shop.webhook.id}, 'evt_' || n from generate_series(1, 300) n`.execute(opened.db);
    await sql`update webhook_deliveries set status = 'delivered' where event_id <> 'evt_1'`.execute(opened.db);
    const { rows } = await sql<{ id: number | string }>`select id from webhook_deliveries where event_id = 'evt_2'`.execute(opened.db);
    ids = { shop: shop.webhook.id, partner: partner.webhook.id, delivery: Number(rows[0]!.id) };
  });
  afterAll(() => opened?.close());

  it('lists every owner\'s endpoints, with their owners and pending counts, and no secret', async () => {
    const listed = await createWebhookAdmin(opened.db).list();
    expect(listed).toEqual([
      expect.objectContaining({ id: ids.shop, owner: { keyId: 3 }, url: 'https://shop.example/hooks', failingSince: null, disabledAt: null, pending: 1 }),
      expect.objectContaining({ id: ids.partner, owner: { principalId: 'acme' }, events: ['order.placed'], pending: 0 }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect(listed[0]!.createdAt).toBeInstanceOf(Date);
  });

  it("reads and redelivers any owner's deliveries, and answers undefined for what is not there", async () => {
    const admin = createWebhookAdmin(opened.db);
    const again = await admin.redeliver(ids.shop, ids.delivery);
    expect(again).toMatchObject({ eventId: 'evt_2', status: 'pending', attempts: 0, nextAttemptAt: null });
    const [newest] = (await admin.deliveries(ids.shop, { limit: 1 }))!;
    expect(newest).toEqual(again);
    expect(await admin.deliveries(ids.shop, { status: 'pending' })).toHaveLength(2);
    expect(await admin.redeliver(ids.partner, ids.delivery)).toBeUndefined();
    expect(await admin.deliveries(999_999)).toBeUndefined();
    expect(await admin.deliveries(ids.partner)).toEqual([]);
  });

  it('reads the backlog the metrics scrape with one scan of the pending index, not of the deliveries', async () => {
    // The statement the repository sends, caught on its way; then the plan of that very statement.
    let caught: { node: RootOperationNode; queryId: { queryId: string } } | undefined;
    const catcher: KyselyPlugin = {
      transformQuery: (args) => ((caught = args), args.node),
      transformResult: async (args) => args.result,
    };
    await opened.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const backlog = await createWebhookRepository(trx.withPlugin(catcher)).backlog();
      expect(backlog.pending).toBe(2);
      const compiled = trx.getExecutor().compileQuery(caught!.node, caught!.queryId);
      const { rows } = await trx.executeQuery<Record<string, unknown>>({ ...compiled, sql: `explain (format json) ${compiled.sql}` });
      const plan = JSON.stringify(rows);
      expect(plan).toContain('webhook_deliveries_pending_idx');
      expect(plan).not.toContain('Seq Scan');
    });
  });
});
