import { scratchPostgres } from '@petstore/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startHaproxy, type Balancer } from './haproxy.js';
import { startProcess, type ServerProcess } from './helpers.js';
import { fleetUnsupported, startPgBouncer, type PgBouncer } from './pgbouncer.js';

// DECISIONS "Orders": of concurrent orders for one pet exactly one is placed, on every instance of a fleet, through
// PgBouncer in transaction pooling as fleets run it; and an instance killed mid-sale leaves no pet sold twice and no
// pet pending without its open order. In CI (.ci/run installs PgBouncer and HAProxy) these must run.
const unsupported = fleetUnsupported('orders behind PgBouncer');

const KEY = 'orders-fleet-key-0123456789';
const json = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe.skipIf(unsupported)('orders on a fleet, one PostgreSQL behind PgBouncer in transaction pooling', () => {
  let db: Awaited<ReturnType<typeof scratchPostgres>>;
  let bouncer: PgBouncer;
  let instances: ServerProcess[];
  let direct: pg.Client;
  const env = () => ({
    DATABASE_URL: new URL(new URL(db.url).pathname, bouncer.url).toString(),
    PETSTORE_API_KEYS: `${KEY}:enterprise:1000000:100000000`,
    PETSTORE_TRUST_PROXY: 'true',
  });
  const post = (instance: ServerProcess, path: string, body?: unknown) =>
    fetch(`${instance.url}/v1${path}`, { method: 'POST', headers: json, body: body === undefined ? undefined : JSON.stringify(body) }).then(
      async (response) => ({ status: response.status, body: (await response.json()) as { id?: number; code?: string } }),
    );
  const newPets = async (count: number) => {
    const { rows } = await direct.query<{ id: string }>(
      `insert into pets (name, category_id, status) select 'Pet ' || n, 1, 'available' from generate_series(1, $1) n returning id`,
      [count],
    );
    return rows.map((row) => Number(row.id));
  };

  beforeAll(async () => {
    db = await scratchPostgres();
    bouncer = await startPgBouncer(db.url);
    // The documented HAProxy recipe balances three instances; the race uses the first two directly.
    instances = [await startProcess(env())];
    instances.push(...(await Promise.all([startProcess(env()), startProcess(env())])));
    direct = new pg.Client({ connectionString: db.url });
    direct.on('error', () => {});
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.end();
    for (const instance of instances ?? []) await instance.stop('SIGKILL');
    await bouncer?.stop();
    await db?.drop();
  });

  it('places one order of 100 concurrent ones for a pet, 20 times: one 201, 99 × 409 pet_not_available, no 5xx', async () => {
    const pets = await newPets(20);
    for (const petId of pets) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => post(instances[i % 2]!, '/store/orders', { petId })));
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 201), `pet ${petId}`).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409 && answer.body.code === 'pet_not_available'), `pet ${petId}`).toHaveLength(99);
    }
    const { rows } = await direct.query<{ orders: string; pending: string }>(
      `select (select count(*) from orders where pet_id = any($1)) as orders,
              (select count(*) from pets where id = any($1) and status = 'pending' and on_order) as pending`,
      [pets],
    );
    expect(rows[0]).toEqual({ orders: '20', pending: '20' });
  });

  it('sells no pet twice and leaves none pending without its order when an instance is killed mid-sale behind HAProxy', async () => {
    const balancer: Balancer = await startHaproxy(instances.map((instance) => instance.url));
    try {
      const pets = await newPets(60);
      // Ten buyers per pet, each placing an order and completing it when it was the one placed, through the balancer.
      const buyer = async (petId: number) => {
        const placed = await send(balancer.port, '/v1/store/orders', { method: 'POST', headers: json, body: JSON.stringify({ petId }) }).catch(() => undefined);
        if (placed?.status !== 201) return placed?.status ?? 0;
        const { id } = JSON.parse(placed.body) as { id: number };
        const done = await send(balancer.port, `/v1/store/orders/${id}/complete`, { method: 'POST', headers: json }).catch(() => undefined);
        return done?.status ?? 0;
      };
      let over = false;
      const sales = Promise.all(pets.flatMap((petId) => Array.from({ length: 10 }, () => buyer(petId)))).finally(() => (over = true));
      await new Promise((resolve) => setTimeout(resolve, 150));
      instances[0]!.child.kill('SIGKILL');
      expect(over, 'the sales were over before the kill').toBe(false);
      const statuses = await sales;
      expect(statuses.filter((status) => status >= 500 && status !== 503)).toEqual([]);
    } finally {
      await balancer.stop();
    }
    // The tables after: each pet at most one order placed or completed, and its status what its orders say.
    const { rows } = await direct.query<{ id: string; status: string; on_order: boolean; placed: string; completed: string }>(
      `select p.id, p.status, p.on_order,
              count(*) filter (where o.status = 'placed') as placed,
              count(*) filter (where o.status = 'completed') as completed
       from pets p left join orders o on o.pet_id = p.id group by p.id order by p.id`,
    );
    for (const pet of rows) {
      expect(Number(pet.completed), `pet ${pet.id} sold twice`).toBeLessThanOrEqual(1);
      expect(Number(pet.placed) + Number(pet.completed), `pet ${pet.id}`).toBeLessThanOrEqual(1);
      const expected = Number(pet.completed) === 1 ? ['sold', false] : Number(pet.placed) === 1 ? ['pending', true] : ['available', false];
      expect([pet.status, pet.on_order], `pet ${pet.id}`).toEqual(expected);
    }
  });
});
