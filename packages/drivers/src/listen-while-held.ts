import type { PostgresPool, PostgresPoolClient } from 'kysely';

type Listener = (error: Error) => void;

/** What a `pg` client is besides what kysely calls: an event emitter. */
interface Emitter {
  on(event: 'error', listener: Listener): unknown;
  removeListener(event: 'error', listener: Listener): unknown;
}

/** `pg-pool`'s `connect`, which calls back when given a callback, and else returns a promise. */
type Connect = (callback: (error: Error | undefined, client: PostgresPoolClient) => void) => Promise<PostgresPoolClient> | undefined;

const isEmitter = (client: object): client is Emitter =>
  typeof (client as Partial<Emitter>).on === 'function' && typeof (client as Partial<Emitter>).removeListener === 'function';

/**
 * A host's pool whose clients each have an `error` listener while the store holds them, from checkout to release.
 * `pg-pool` takes its own listener off a client it hands out, and a `pg` client whose connection dies (a backend
 * terminated, 57P01; a proxy that drops it) emits `error`: with no listener that is an unhandled `error` event, and
 * the host's process ends, whatever listener the host put on its pool. Held, the error only marks the client
 * unusable: its statement fails (an outage, 503), and it is released with that error, so the pool drops it. The
 * listener comes off on release, so a client back in the host's pool, and every client the host checks out itself,
 * behave exactly as before. The client given is `pg`'s own behind a thin wrapper (its `query` and `release`).
 * @example const db = new Kysely({ dialect: new PostgresDialect({ pool: listenWhileHeld(hostPool) }) })
 */
export function listenWhileHeld(pool: Pick<PostgresPool, 'connect'>): Pick<PostgresPool, 'connect'> {
  // One wrapper per client, so kysely's driver, which keeps a connection per client object, keeps reusing its own.
  const wrappers = new WeakMap<PostgresPoolClient, { held: PostgresPoolClient; hold(): void }>();
  const wrap = (client: PostgresPoolClient & Emitter) => {
    let lost: Error | undefined;
    const listener: Listener = (error) => {
      lost ??= error;
    };
    const held: PostgresPoolClient = Object.create(client);
    held.query = ((...args: Parameters<PostgresPoolClient['query']>) => client.query(...args)) as PostgresPoolClient['query'];
    held.release = ((destroy?: boolean | Error) => {
      client.removeListener('error', listener);
      const error = lost;
      lost = undefined;
      (client as { release(destroy?: boolean | Error): void }).release(destroy ?? error);
    }) as PostgresPoolClient['release'];
    return { held, hold: () => client.on('error', listener) };
  };
  const hold = (client: PostgresPoolClient): PostgresPoolClient => {
    if (!isEmitter(client)) return client;
    let wrapper = wrappers.get(client);
    if (!wrapper) {
      wrapper = wrap(client);
      wrappers.set(client, wrapper);
    }
    wrapper.hold();
    return wrapper.held;
  };
  return {
    connect: () =>
      new Promise<PostgresPoolClient>((resolve, reject) => {
        let settled = false;
        const take = (error: unknown, client?: PostgresPoolClient) => {
          if (settled) return;
          settled = true;
          if (client) resolve(hold(client));
          else reject(error);
        };
        // pg's callback comes in the same turn as the pool takes its own listener off, before any more of the
        // connection's data is read (a new connection's first read may hold its 57P01 too); a promise would resume
        // only after that read. A pool without the callback form answers with its promise.
        const answer = (pool as unknown as { connect: Connect }).connect((error, client) => take(error, error ? undefined : client));
        if (answer && typeof answer.then === 'function') answer.then((client) => take(undefined, client), (error: unknown) => take(error));
      }),
  };
}
