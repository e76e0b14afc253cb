import type { Kysely } from 'kysely';
import { createApiKeyStore, type ApiKeyRecord, type ApiKeyStore } from '../auth/api-key-store.js';
import { createAuthenticator } from '../auth/authenticator.js';
import { systemClock, type Clock } from '../clock.js';
import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import type { GetPetInput, ListPetsInput, NewPet, Pet } from '../domain/pet-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { isDatabaseUnavailable } from '../errors/unavailable.js';
import { validateWithIdempotencyKey } from '../idempotency/idempotency-key.js';
import { createIdempotencyStore } from '../idempotency/idempotency-store.js';
import { operations, type OperationId } from '../operations/operations.js';
import type { Database } from '../storage/database.js';
import { createPetRepository, type PetRepository } from '../storage/pet-repository.js';
import { unlimitedQuota, type Quota } from './quota.js';
import { createPageCache } from './page-cache.js';
import type { ResponseMeta } from './response-meta.js';

/** Who is calling, and how the input arrives. */
export interface CallContext {
  /** The bearer token, as sent. */
  apiKey?: string | undefined;
  /** The client's address, for the limit on requests without a valid key. */
  clientAddress?: string | undefined;
  /** Set when the caller already admitted the request with {@link PetStore.admit}. */
  admission?: Admission | undefined;
  /** `http`: query and path values are strings (REST); `typed` (default): values have their JSON types. */
  encoding?: 'typed' | 'http';
  /**
   * The `Idempotency-Key` header, as sent (1 to 255 visible ASCII characters, else 400). On a POST (`createPet`) a
   * repeat with the same key and the same validated input within 24 hours answers the first response with
   * `meta.replayed`; another input, or a repeat while the first runs, is 409 `idempotency_key_reused`.
   * Ignored by reads.
   */
  idempotencyKey?: string | undefined;
}

/** A request that passed authentication, the quota and the operation's availability. */
export interface Admission {
  readonly operationId: OperationId;
  readonly key: ApiKeyRecord;
  readonly meta: ResponseMeta;
}

/** The answer of an operation: its data, and what the response carries besides. */
export interface Outcome<T> {
  data: T;
  status: number;
  meta: ResponseMeta;
}

/** The pet store: every operation with the same authentication, quota, validation and errors for every caller. */
export interface PetStore {
  /** Lists animals in ascending id order; `meta.nextCursor` is set when more exist. The page is frozen. */
  listPets(input: ListPetsInput, context: CallContext): Promise<Outcome<readonly Pet[]>>;
  /** Adds an animal; answers with status 201 and the animal with its new id. */
  createPet(input: NewPet, context: CallContext): Promise<Outcome<Pet>>;
  /** Fetches one animal. Deprecated: from 5 December 2030 it answers 410 `gone`. */
  getPet(input: GetPetInput, context: CallContext): Promise<Outcome<Pet>>;
  /** Runs an operation by id on input not yet validated (adapters). */
  call(operationId: OperationId, input: unknown, context: CallContext): Promise<Outcome<unknown>>;
  /** Authenticates, counts the request against the quota and checks the operation is still served. */
  admit(operationId: OperationId, context: CallContext): Promise<Admission>;
  /**
   * Counts a request that matches no operation (an unknown path, another method) against the caller's quota:
   * the key's when it is valid, the client address's otherwise. Never refuses a missing key; throws only 429/503.
   */
  meter(context: CallContext): Promise<ResponseMeta>;
  /** Whether the database answers. */
  isHealthy(): Promise<boolean>;
  /** The key a bearer token named when this store last verified it, from memory (for logs); never queries. */
  recallKey(apiKey: string): ApiKeyRecord | undefined;
  /** The key store, for the key tool and for seeding keys. */
  readonly apiKeys: ApiKeyStore;
  readonly clock: Clock;
}

/** A request counted against a quota: by its key when valid, else by its address; `refusal` when over a limit. */
export interface CountedRequest {
  key: ApiKeyRecord | undefined;
  refusal?: PetStoreError;
}

/** What {@link createPetStore} is built from. */
export interface PetStoreOptions {
  db: Kysely<Database>;
  clock?: Clock;
  /** The quota step; none by default. */
  quota?: Quota;
  /** Told of every counted request (for logs and metrics: the key id, the plan, 429s). */
  onRequestCounted?: (request: CountedRequest) => void;
  /**
   * How long a page of `listPets` is served from memory, in ms (default 1000). A write through this store shows in
   * its next list at once; writes through other instances on the same database show within this time. 0 turns
   * the cache off.
   */
  listCacheMs?: number;
}

function withMeta(error: unknown, meta: ResponseMeta): PetStoreError {
  const failure =
    error instanceof PetStoreError
      ? error
      : isDatabaseUnavailable(error)
        ? new PetStoreError('unavailable', undefined, { cause: error })
        : new PetStoreError('internal_error', undefined, { cause: error });
  failure.meta = { ...meta, ...failure.meta };
  return failure;
}

/**
 * Builds the pet store from its collaborators; nothing is read from globals.
 * @example const store = createPetStore({ db, clock: systemClock }); await store.listPets({ limit: 5 }, { apiKey })
 */
export function createPetStore(options: PetStoreOptions): PetStore {
  const { db, clock = systemClock, quota = unlimitedQuota, onRequestCounted, listCacheMs = 1000 } = options;
  const pages = createPageCache<{ rows: readonly Pet[]; nextCursor: string | undefined }>(clock, listCacheMs);
  const pets: PetRepository = createPetRepository(db);
  const apiKeys = createApiKeyStore(db);
  const authenticator = createAuthenticator({ keys: apiKeys, clock });
  const idempotency = createIdempotencyStore({ db, clock });

  const handlers = {
    async listPets(
      input: { limit: number; status?: Pet['status'] | undefined; cursor?: string | undefined },
      meta: ResponseMeta,
      pets: PetRepository,
    ) {
      const afterId = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
      const page = await pages.get(`${input.status ?? ''}:${afterId}:${input.limit}`, async () => {
        const rows = await pets.list({ status: input.status, afterId, limit: input.limit + 1 });
        const more = rows.length > input.limit;
        if (more) rows.length = input.limit;
        for (const row of rows) Object.freeze(row);
        return Object.freeze({ rows: Object.freeze(rows), nextCursor: more ? encodeCursor(rows[rows.length - 1]!.id) : undefined });
      });
      if (page.nextCursor !== undefined) meta.nextCursor = page.nextCursor;
      return page.rows;
    },
    async createPet(input: Omit<Pet, 'id'>, _meta: ResponseMeta, pets: PetRepository) {
      return pets.insert(input);
    },
    async getPet(input: { petId: number }, _meta: ResponseMeta, pets: PetRepository) {
      const pet = await pets.findById(input.petId);
      if (!pet) throw new PetStoreError('not_found', `No animal with id ${input.petId}.`);
      return pet;
    },
  } satisfies Record<OperationId, (input: never, meta: ResponseMeta, pets: PetRepository) => Promise<unknown>>;

  /** Verifies the key and counts the request: against the key when valid, else against the client address. */
  async function count(context: CallContext, meta: ResponseMeta) {
    const token = context.apiKey;
    const key = token === undefined ? undefined : await authenticator.verify(token);
    try {
      meta.rateLimit = key ? await quota.consumeKey(key) : await quota.consumeAddress(context.clientAddress ?? 'unknown');
    } catch (error) {
      if (error instanceof PetStoreError && error.status === 429) onRequestCounted?.({ key, refusal: error });
      throw error;
    }
    onRequestCounted?.({ key });
    return key;
  }

  async function meter(context: CallContext): Promise<ResponseMeta> {
    const meta: ResponseMeta = {};
    try {
      await count(context, meta);
      return meta;
    } catch (error) {
      throw withMeta(error, meta);
    }
  }

  async function admit(operationId: OperationId, context: CallContext): Promise<Admission> {
    const meta: ResponseMeta = {};
    try {
      const key = await count(context, meta);
      if (!key) throw new PetStoreError(context.apiKey === undefined ? 'missing_api_key' : 'invalid_api_key');
      const { deprecation } = operations[operationId];
      if (deprecation) {
        meta.deprecation = deprecation;
        if (clock.now() >= deprecation.sunset.getTime()) {
          throw new PetStoreError('gone', `This operation was removed on ${deprecation.sunset.toUTCString()}; use GET ${deprecation.successor}.`);
        }
      }
      return { operationId, key, meta };
    } catch (error) {
      throw withMeta(error, meta);
    }
  }

  async function call(operationId: OperationId, input: unknown, context: CallContext): Promise<Outcome<any>> {
    const admission =
      context.admission?.operationId === operationId ? context.admission : await admit(operationId, context);
    const meta: ResponseMeta = { ...admission.meta };
    try {
      const op = operations[operationId];
      const idempotencyKey = op.method === 'POST' ? context.idempotencyKey : undefined;
      const schema = context.encoding === 'http' ? op.httpInput : op.input;
      const parsed = validateWithIdempotencyKey(schema, input, idempotencyKey);
      const handle = (repository: PetRepository) => handlers[operationId](parsed as never, meta, repository);
      if (idempotencyKey === undefined) {
        const data = await handle(pets);
        if (op.method === 'POST') pages.invalidate();
        return { data, status: op.successStatus, meta };
      }
      const result = await idempotency.run(
        { apiKeyId: admission.key.id, key: idempotencyKey, operationId, input: parsed, status: op.successStatus },
        (trx) => handle(createPetRepository(trx)),
      );
      if (result.replayed) meta.replayed = true;
      else pages.invalidate();
      return { data: result.data, status: result.status, meta };
    } catch (error) {
      throw withMeta(error, meta);
    }
  }

  return Object.freeze({
    listPets: (input, context) => call('listPets', input, context),
    createPet: (input, context) => call('createPet', input, context),
    getPet: (input, context) => call('getPet', input, context),
    call,
    admit,
    meter,
    recallKey: (apiKey) => authenticator.recall(apiKey),
    async isHealthy() {
      try {
        await db.selectFrom('pets').select('id').limit(1).execute();
        return true;
      } catch {
        return false;
      }
    },
    apiKeys,
    clock,
  } satisfies PetStore);
}
