import { PostgresDialect, type PostgresPool, type PostgresPoolClient, type PostgresQueryResult } from 'kysely';
import { createStatementRunner, type PGliteProtocol } from './pglite-statements.js';

/** The part of a PGlite instance the dialect uses. */
export interface PGliteLike extends PGliteProtocol {
  close(): Promise<void>;
}

const WRITE_COMMAND = /^\s*(insert|update|delete|merge)\b/i;

/** Hands out PGlite's single session to one holder at a time, in order of request. */
class SessionLock {
  #tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ready = this.#tail.then(() => release);
    this.#tail = this.#tail.then(() => held);
    return ready;
  }
}

function createPool(pglite: PGliteLike): PostgresPool {
  const lock = new SessionLock();
  const run = createStatementRunner(pglite);
  return {
    async connect(): Promise<PostgresPoolClient> {
      const release = await lock.acquire();
      async function query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        const result = await run<R>(sql, parameters);
        const command = WRITE_COMMAND.exec(sql)?.[1]?.toUpperCase() as PostgresQueryResult<R>['command'];
        return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
      }
      // Streaming (the cursor overload) is not offered: PGlite returns whole results.
      return { query: query as PostgresPoolClient['query'], release };
    },
    end: () => pglite.close(),
  };
}

/**
 * A kysely dialect over one PGlite instance. PGlite has a single session, so connections are handed out one at a
 * time: a transaction holds the session until it ends and nothing interleaves with it. Statements run as prepared
 * statements, each execution one protocol message (see {@link createStatementRunner}).
 * @example new Kysely<Database>({ dialect: createPGliteDialect(await PGlite.create('memory://')) })
 */
export function createPGliteDialect(pglite: PGliteLike): PostgresDialect {
  return new PostgresDialect({ pool: createPool(pglite) });
}
