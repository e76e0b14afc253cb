import { PetStoreError } from '@petstore/core';

/** The database `openPetStore` was given: its own URL, the host's pool (a `pg` Pool keeps its options), or a Kysely. */
export interface GivenDatabase {
  databaseUrl?: string | undefined;
  pool?: object | undefined;
  db?: object | undefined;
}

/** `host:port/database` of a `postgres://` URL, leaving out its user and password; undefined when it is not a URL. */
function addressOfUrl(url: string): string | undefined {
  try {
    const { hostname, port, pathname, searchParams } = new URL(url);
    const database = decodeURIComponent(pathname.slice(1));
    return `${hostname || searchParams.get('host') || 'localhost'}:${port || '5432'}${database ? `/${database}` : ''}`;
  } catch {
    return undefined;
  }
}

/** Where a `pg` Pool connects, from the options it keeps (`pool.options`), when they say. */
function addressOfPool(pool: object): string | undefined {
  const options = (pool as { options?: { connectionString?: unknown; host?: unknown; port?: unknown; database?: unknown } }).options;
  if (typeof options?.connectionString === 'string') return addressOfUrl(options.connectionString);
  if (typeof options?.host !== 'string') return undefined;
  return `${options.host}:${options.port ?? 5432}${typeof options.database === 'string' ? `/${options.database}` : ''}`;
}

/** The address a refused or failed connection names (`address` and `port` of Node's error), in it or its causes. */
function addressOfError(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { address, port } = error as { address?: unknown; port?: unknown };
  if (typeof address === 'string') return typeof port === 'number' ? `${address}:${port}` : address;
  const inner = error instanceof AggregateError ? error.errors : [];
  for (const each of [...inner, error.cause]) {
    const found = addressOfError(each);
    if (found) return found;
  }
  return undefined;
}

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  // Node's AggregateError of a refused connection to several addresses has no message of its own.
  if (error.message) return error.message;
  const code = (error as { code?: unknown }).code;
  return error instanceof AggregateError && error.errors[0] ? reasonOf(error.errors[0]) : typeof code === 'string' ? code : error.name;
};

/**
 * What `openPetStore` (and the key tool, `so nothing was done`) throws when its database cannot be reached: 503's
 * `unavailable`, naming the database by host, port and name (never a user or password), what did not happen
 * (`outcome`), and `pg`'s reason, with `pg`'s error as its `cause`.
 * @example throw unreachableDatabase(error, { databaseUrl })
 */
export function unreachableDatabase(error: unknown, given: GivenDatabase, outcome = 'so the store did not open'): PetStoreError {
  const address = (given.databaseUrl ? addressOfUrl(given.databaseUrl) : given.pool ? addressOfPool(given.pool) : undefined) ?? addressOfError(error);
  const where = address ? `at ${address}` : given.db ? 'behind your Kysely' : 'behind your pool';
  return new PetStoreError('unavailable', `The pet store's database ${where} cannot be reached, ${outcome}: ${reasonOf(error)}`, {
    cause: error,
  });
}
