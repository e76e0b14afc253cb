import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { Database } from '../storage/database.js';
import { requestHash } from './request-hash.js';

/**
 * How long a first response answers for its key: 24 hours from the first request, inclusive.
 * @example clock.now() - createdAt <= IDEMPOTENCY_WINDOW_MS // still replayed
 */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A claim without a response this old is taken to be abandoned (its instance died) and may be taken over. */
const CLAIM_LEASE_MS = 30_000;
const SWEEP_EVERY_MS = 60_000;
const CLAIM_ATTEMPTS = 3;

/** One request made with an Idempotency-Key, already admitted and validated. */
export interface IdempotentRequest {
  apiKeyId: number;
  key: string;
  operationId: string;
  /** The validated input, defaults applied. */
  input: unknown;
  /** The status of a first, successful response. */
  status: number;
  /** The answer's meta, which `perform` fills: its ETag is kept with the first response and given back with it. */
  meta?: { etag?: string | undefined } | undefined;
}

/** The response to answer with, and whether it repeats the first one. */
export interface IdempotentResult {
  data: unknown;
  status: number;
  replayed: boolean;
  /** The first response's ETag, when replayed and it had one. */
  etag?: string | undefined;
}

/** Runs a write at most once per (API key, Idempotency-Key) within 24 hours, across instances. */
export interface IdempotencyStore {
  /**
   * Replays the first response, refuses with 409, or runs `perform` in a transaction that also stores its result.
   * `perform` must use only `trx` (on PGlite any other query would wait for the transaction to end).
   */
  run(request: IdempotentRequest, perform: (trx: Transaction<Database>) => Promise<unknown>): Promise<IdempotentResult>;
  /** Deletes entries older than 24 hours now and answers how many; `run` also does so about once a minute. */
  clearExpired(): Promise<number>;
}

const reused = () =>
  new PetStoreError(
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different request in the last 24 hours; use a new key for a new request.',
  );
const inProgress = () =>
  new PetStoreError(
    'idempotency_key_reused',
    'The first request with this Idempotency-Key is still in progress; retry it shortly to get its response.',
    { meta: { retryAfter: 1 } },
  );

/**
 * The idempotency_keys table: a claim committed first, then the write and its response in one transaction.
 * @example const result = await createIdempotencyStore({ db, clock }).run(request, (trx) => insertPet(trx))
 */
export function createIdempotencyStore(options: { db: Kysely<Database>; clock: Clock }): IdempotencyStore {
  const { db, clock } = options;
  let nextSweep = -Infinity;

  async function clearExpired(): Promise<number> {
    const expiredBefore = new Date(clock.now() - IDEMPOTENCY_WINDOW_MS);
    const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', expiredBefore).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Inserts a claim, or takes over an expired entry or an abandoned claim; undefined when the key is held. */
  async function claim(request: IdempotentRequest, hash: string): Promise<string | undefined> {
    const now = clock.now();
    const row = await db
      .insertInto('idempotency_keys')
      .values({
        api_key_id: request.apiKeyId,
        key: request.key,
        request_hash: hash,
        claim: randomUUID(),
        created_at: new Date(now),
      })
      .onConflict((oc) =>
        oc
          .columns(['api_key_id', 'key'])
          .doUpdateSet((eb) => ({
            request_hash: eb.ref('excluded.request_hash'),
            claim: eb.ref('excluded.claim'),
            created_at: eb.ref('excluded.created_at'),
            response_status: null,
            response_body: null,
            response_etag: null,
          }))
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.created_at', '<', new Date(now - IDEMPOTENCY_WINDOW_MS)),
              eb.and([
                eb('idempotency_keys.response_status', 'is', null),
                eb('idempotency_keys.created_at', '<=', new Date(now - CLAIM_LEASE_MS)),
              ]),
            ]),
          ),
      )
      .returning('claim')
      .executeTakeFirst();
    return row?.claim;
  }

  async function complete(
    request: IdempotentRequest,
    owner: string,
    perform: (trx: Transaction<Database>) => Promise<unknown>,
  ) {
    return db.transaction().execute(async (trx) => {
      const data = await perform(trx);
      const stored = await trx
        .updateTable('idempotency_keys')
        .set({ response_status: request.status, response_body: JSON.stringify(data), response_etag: request.meta?.etag ?? null })
        .where('api_key_id', '=', request.apiKeyId)
        .where('key', '=', request.key)
        .where('claim', '=', owner)
        .where('response_status', 'is', null)
        .executeTakeFirst();
      if (stored.numUpdatedRows !== 1n) throw inProgress();
      return data;
    });
  }

  async function release(request: IdempotentRequest, owner: string) {
    await db
      .deleteFrom('idempotency_keys')
      .where('api_key_id', '=', request.apiKeyId)
      .where('key', '=', request.key)
      .where('claim', '=', owner)
      .where('response_status', 'is', null)
      .execute()
      .catch(() => {
        // The claim stays until its lease ends; the original failure is the one to report.
      });
  }

  async function run(request: IdempotentRequest, perform: (trx: Transaction<Database>) => Promise<unknown>) {
    if (clock.now() >= nextSweep) {
      nextSweep = clock.now() + SWEEP_EVERY_MS;
      await clearExpired();
    }
    const hash = requestHash(request.operationId, request.input);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const owner = await claim(request, hash);
      if (owner !== undefined) {
        try {
          return { data: await complete(request, owner, perform), status: request.status, replayed: false };
        } catch (error) {
          await release(request, owner);
          throw error;
        }
      }
      const held = await db
        .selectFrom('idempotency_keys')
        .select(['request_hash', 'response_status', 'response_body', 'response_etag'])
        .where('api_key_id', '=', request.apiKeyId)
        .where('key', '=', request.key)
        .executeTakeFirst();
      if (!held) continue;
      if (held.request_hash !== hash) throw reused();
      if (held.response_status === null) throw inProgress();
      return { data: held.response_body, status: held.response_status, replayed: true, etag: held.response_etag ?? undefined };
    }
    throw inProgress();
  }

  return Object.freeze({ run, clearExpired });
}
