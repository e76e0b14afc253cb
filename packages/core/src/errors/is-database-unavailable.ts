import { PetStoreError } from './pet-store-error.js';

// Errors of the network itself (Node's codes): the connection could not be made or was lost.
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'EHOSTUNREACH']);
// SQLSTATE class 08 (connection exception) and 28 (login refused), 57P01-57P03 (the server shutting down or not yet
// accepting connections), 53300 (too many connections), 3D000 (no such database): the server cannot serve us.
const UNAVAILABLE_SQLSTATE = /^(08...|28...|57P0[123]|53300|3D000)$/;
// What drivers say without a code when a connection is lost or closed, or when their pool has none to give in time.
const UNAVAILABLE_MESSAGE =
  /connection terminated|driver has already been destroyed|timeout exceeded when trying to connect|pglite is closed|client has encountered a connection error|cannot use a pool after calling end/i;

/**
 * Whether a storage error means the database cannot be reached (an outage: 503 `unavailable`) rather than a fault of
 * the service (500 `internal_error`): a connection refused, lost or timed out, the server shutting down, a pool with
 * no connection to give in time. Any other SQLSTATE (42P05, 42601, 23505, …) is a fault. Reads only codes and
 * messages, so it serves every driver (`pg`, PGlite); the default `isUnavailable` of `createPetStore`.
 * @example isDatabaseUnavailable(Object.assign(new Error(), { code: 'ECONNREFUSED' })) // true
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Classified already, where it came from (a client's body that broke off is a 400 whose cause is an ECONNRESET):
  // its code says what it is, whatever its causes' codes.
  if (error instanceof PetStoreError && error.code !== 'unavailable') return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERRORS.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  return UNAVAILABLE_MESSAGE.test(error.message) || (error.cause !== undefined && isDatabaseUnavailable(error.cause));
}
