import type { PostgresPoolLike } from '@petstore/core';
import type { PostgresPool as KyselyPool } from 'kysely';
import type pg from 'pg';
import type { DatabaseWait } from './database-wait.js';

const since = (started: number) => (performance.now() - started) / 1000;

/** A checked-out client whose statements are timed; the client itself is `pg`'s, its other members untouched. */
function timedClient<C extends { query: (...args: any[]) => any }>(client: C, observe: DatabaseWait): C {
  const timed = Object.create(client) as C;
  timed.query = ((...args: unknown[]) => {
    const started = performance.now();
    const result = client.query(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(
        () => observe('statement', since(started)),
        () => observe('statement', since(started)),
      );
    }
    return result;
  }) as C['query'];
  return timed;
}

/**
 * The pool as kysely checks connections out of it, each checkout and each statement timed.
 * @example new Kysely({ dialect: createPostgresDialect({ pool: timedPool(pool, observe) }) })
 */
export function timedPool(pool: pg.Pool, observe: DatabaseWait): KyselyPool {
  return {
    async connect() {
      const started = performance.now();
      const client = await pool.connect();
      observe('acquire', since(started));
      return timedClient(client, observe);
    },
    end: () => pool.end(),
  };
}

/**
 * The quota's statements on the pool, as `pool.query` runs them (a connection checked out, the statement, the
 * connection given back, or dropped after an error), with the checkout and the statement timed apart.
 * @example createQuota({ store: 'postgres', pool: timedStatements(pool, observe) })
 */
export function timedStatements(pool: pg.Pool, observe: DatabaseWait): PostgresPoolLike {
  return {
    async query({ text, values = [] }) {
      const started = performance.now();
      const client = await pool.connect();
      observe('acquire', since(started));
      const sent = performance.now();
      try {
        const result = await client.query(text, values as unknown[]);
        client.release();
        return { rowCount: result.rowCount, rows: result.rows };
      } catch (error) {
        client.release(error as Error);
        throw error;
      } finally {
        observe('statement', since(sent));
      }
    },
  };
}
