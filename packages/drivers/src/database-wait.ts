/**
 * Told how long the store waited for its database: `acquire`, for a connection of its own pool (the pool's queue);
 * `statement`, one statement's round trip, which behind PgBouncer includes PgBouncer's wait for a server connection.
 */
export type DatabaseWait = (stage: 'acquire' | 'statement', seconds: number) => void;
