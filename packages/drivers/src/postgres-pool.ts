import type { PostgresPoolLike } from '@petstore/core';

/** A result of {@link PostgresPool.query}. */
export interface PostgresQueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

/**
 * The `pg` Pool of a database on PostgreSQL, as far as the packages and their users call it; the object is `pg`'s
 * own `Pool`. Declared here so that a host needs no `@types/pg` to compile against the packages.
 */
export interface PostgresPool extends PostgresPoolLike {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PostgresQueryResult<R>>;
  query(config: { text: string; values?: unknown[] }): Promise<PostgresQueryResult<unknown>>;
  /** Checks a client out; give it back with `release()`. */
  connect(): Promise<{ release(destroy?: boolean | Error): void } & Pick<PostgresPool, 'query'>>;
  end(): Promise<void>;
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}
