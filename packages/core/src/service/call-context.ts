import type { Principal } from '../auth/principal.js';

/** Who is calling. */
export interface CallContext {
  /** The API key (the bearer token), as sent. */
  apiKey?: string | undefined;
  /**
   * A caller the host authenticated itself, counted under its own plan instead of a key (`apiKey` is then ignored).
   * Its calls take no `Idempotency-Key` and are left out of the deprecated-usage inventory, which are per API key.
   */
  principal?: Principal | undefined;
  /** The client's address, for the limit on requests without a valid key. */
  clientAddress?: string | undefined;
  /**
   * The `Idempotency-Key`, as sent (1 to 255 visible ASCII characters, else 400). On `createPet` a repeat with the
   * same key and the same validated input within 24 hours answers the first response with `meta.replayed`; another
   * input, or a repeat while the first runs, is 409 `idempotency_key_reused`. Ignored by reads.
   */
  idempotencyKey?: string | undefined;
  /**
   * The `If-Match` of a conditional write (`updatePet`, `deletePet`), as sent: a list of ETags or `*`. When the animal
   * is at no version it names, 412 `precondition_failed` with the current ETag in `meta.etag`, and nothing changes.
   * @example await store.updatePet({ petId: 7, status: 'sold' }, { apiKey, ifMatch: etag })
   */
  ifMatch?: string | undefined;
  /**
   * The `If-None-Match` of a conditional read (`listPets`, `getPet`), as sent. When it matches the answer's ETag, the
   * outcome has `meta.notModified` (REST answers 304) and is counted against no window; the key must still be valid
   * and within its windows. A host's principal is always counted. Ignored by other operations.
   */
  ifNoneMatch?: string | undefined;
}
