import type { PostgresPool } from 'kysely';

/** How long the store waits for a connection of any pool before it answers 503 `unavailable`: as on its own pool. */
export const ACQUIRE_TIMEOUT_MS = 5_000;

/**
 * Thrown when a pool gives no connection in time. Its message carries `pg`'s own wording for the same case, so
 * `isDatabaseUnavailable` tells it an outage (503), never a fault.
 */
export class AcquireTimeoutError extends Error {
  constructor(ms: number) {
    super(`timeout exceeded when trying to connect: the pool gave no connection within ${ms} ms`);
    this.name = 'AcquireTimeoutError';
  }
}

type Client = Awaited<ReturnType<PostgresPool['connect']>>;

/**
 * `connect` of a pool, bounded: after `ms` the wait is refused, and a connection the pool hands over later goes back
 * to it at once. A host's `pg` Pool waits for ever by default (`connectionTimeoutMillis: 0`), so the store sets its
 * own bound instead of relying on the host's.
 * @example const connect = boundedAcquire(pool); const client = await connect()
 */
export function boundedAcquire(pool: Pick<PostgresPool, 'connect'>, ms = ACQUIRE_TIMEOUT_MS): () => Promise<Client> {
  return () =>
    new Promise<Client>((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new AcquireTimeoutError(ms));
      }, ms);
      pool.connect().then(
        (client) => {
          if (!late) {
            clearTimeout(timer);
            resolve(client);
          } else client.release();
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (!late) reject(error);
        },
      );
    });
}
