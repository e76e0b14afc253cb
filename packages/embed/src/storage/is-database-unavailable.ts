const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);
const UNAVAILABLE_MESSAGE = /connection terminated|driver has already been destroyed|timeout exceeded when trying to connect|pglite is closed|client has encountered a connection error|cannot use a pool after calling end/i;

/**
 * Whether an error of `pg` or PGlite means the database cannot be reached (answered as 503 `unavailable`), as
 * opposed to a fault: what each driver says when a connection is refused, dropped or closed. The core gets it as
 * `isUnavailable`.
 * @example isDatabaseUnavailable(Object.assign(new Error(), { code: 'ECONNREFUSED' })) // true
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (CONNECTION_ERRORS.has(code)) return true;
    // SQLSTATE class 08 (connection exception), 28 (login refused), 57P0x (shutdown), 53300 (too many
    // connections), 3D000 (the database does not exist).
    if (/^(08|28|57P0)/.test(code) || code === '53300' || code === '3D000') return true;
  }
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return UNAVAILABLE_MESSAGE.test(error.message) || (error.cause !== undefined && isDatabaseUnavailable(error.cause));
}
