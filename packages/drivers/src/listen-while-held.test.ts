import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable } from '@petstore/core';
import { databaseUrl } from '@petstore/testing';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { listenWhileHeld } from './listen-while-held.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A host's pool as hosts make it, with only the pool's own `error` listener (for idle clients), and the `pg` client it
 * handed out last.
 */
function hostPool(connectionString: string) {
  const pool = new pg.Pool({ connectionString, max: 1 });
  pool.on('error', () => {});
  let client: pg.PoolClient | undefined;
  pool.on('acquire', (acquired) => {
    client = acquired;
  });
  cleanups.push(() => pool.end());
  return { pool, client: () => client! };
}

async function terminate(pid: number) {
  const admin = new pg.Client({ connectionString: databaseUrl });
  admin.on('error', () => {});
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

/**
 * A proxy to PostgreSQL that holds back a new connection's first ReadyForQuery until `onReady` has ended that backend,
 * then passes it with the backend's 57P01 in one write: the client reads its connection made and lost in one turn.
 */
async function readyAndLostInOneRead(onReady: (pid: number) => Promise<void>) {
  const target = new URL(databaseUrl!);
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    let pending = Buffer.alloc(0);
    let pid: number | undefined;
    let holding = false;
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (holding) return;
      // Whole messages (a type byte, then a length that counts itself) pass until ReadyForQuery ('Z').
      let offset = 0;
      while (pending.length - offset >= 5 && pending.length - offset >= 1 + pending.readInt32BE(offset + 1)) {
        const type = String.fromCharCode(pending[offset]!);
        if (type === 'K') pid = pending.readInt32BE(offset + 5);
        if (type === 'Z' && pid !== undefined) {
          holding = true;
          break;
        }
        offset += 1 + pending.readInt32BE(offset + 1);
      }
      client.write(pending.subarray(0, offset));
      pending = pending.subarray(offset);
      if (holding) void onReady(pid!);
    });
    upstream.on('end', () => client.end(pending));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const url = new URL(databaseUrl!);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return url.toString();
}

describe.skipIf(!databaseUrl)("a host's pool, its clients listened to while the store holds them", () => {
  it('has an error listener on each client the store holds, and none left once released or on the host\'s own', async () => {
    const { pool, client } = hostPool(databaseUrl!);
    (await pool.connect()).release();
    const idle = client().listeners('error');

    const held = await listenWhileHeld(pool).connect();
    try {
      // pg-pool took its own listener off; the one there is the store's.
      expect(client().listenerCount('error')).toBe(1);
      expect(client().listeners('error')).not.toEqual(idle);
      await held.query('select 1', []);
    } finally {
      held.release();
    }
    expect(client().listeners('error')).toEqual(idle);

    const own = await pool.connect();
    expect(own).toBe(client());
    expect(own.listenerCount('error')).toBe(0);
    own.release();
  });

  it('keeps the process when a held client loses its backend between statements; its next statement is an outage and the pool drops it', async () => {
    const { pool, client } = hostPool(databaseUrl!);
    const held = await listenWhileHeld(pool).connect();
    try {
      const { rows } = await held.query<{ pid: number }>('select pg_backend_pid() as pid', []);
      // Not events.once: it would take the 57P01 for its own failure.
      const lost = new Promise((resolve) => client().once('end', resolve));
      await terminate(rows[0]!.pid);
      // Its 57P01 and its end come while the client is held with no statement running.
      expect(await Promise.race([lost.then(() => 'ended'), sleep(2_000)])).toBe('ended');
      const error = await held.query('select 1', []).catch((e: unknown) => e);
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      held.release();
    }
    expect(pool.totalCount).toBe(0);
    expect((await pool.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('listens from the same turn the pool hands a new client over, when that client reads its 57P01 with its ReadyForQuery', async () => {
    let ended: Promise<void> | undefined;
    const url = await readyAndLostInOneRead(async (pid) => {
      ended = terminate(pid);
      await ended;
    });
    const { pool } = hostPool(url);
    const held = await listenWhileHeld(pool).connect();
    await ended;
    const error = await held.query('select 1', []).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    held.release();
    expect(pool.totalCount).toBe(0);
  });
});
