import { expectedVersions, petETag } from '../domain/etag.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { ResponseMeta } from '../service/response-meta.js';
import type { ExpectedVersion, PetRepository, StoredPet } from '../storage/pet-repository.js';

/**
 * Makes a change of animal `id` that `If-Match` may condition (DECISIONS "The store changes"): the check and the
 * change are one statement (`change`), so of concurrent changes expecting one version exactly one is made. When
 * nothing was changed, the animal is read once to tell 404 (none) from 409 `pet_has_open_order` (a change the
 * statement refuses while an order of the pet is placed: `ordersGuard`) and 412 `precondition_failed`, whose meta
 * carries the current ETag. The changed animal's ETag goes in `meta`.
 * @example await conditionalChange(env, petId, (expected) => env.pets.delete(petId, expected), true)
 */
export async function conditionalChange(
  env: { readonly pets: PetRepository; readonly meta: ResponseMeta; readonly ifMatch?: string | undefined },
  id: number,
  change: (expected: ExpectedVersion | undefined) => Promise<StoredPet | undefined>,
  ordersGuard: boolean,
): Promise<StoredPet> {
  const expected = env.ifMatch === undefined ? undefined : expectedVersions(env.ifMatch, id);
  // No version of this animal can match: nothing to try.
  const changed = Array.isArray(expected) && expected.length === 0 ? undefined : await change(expected);
  if (changed) {
    env.meta.etag = petETag(id, changed.version);
    return changed;
  }
  const current = await env.pets.findById(id);
  if (!current) throw new PetStoreError('not_found', `No animal with id ${id}.`);
  // Without a condition, an order is the one thing that refuses the change (it may have closed since: try again).
  if (ordersGuard && (current.onOrder || expected === undefined)) {
    throw new PetStoreError('pet_has_open_order', `The animal ${id} has an open order: its status changes only through the order.`, {
      meta: { etag: petETag(id, current.version) },
    });
  }
  throw new PetStoreError('precondition_failed', `The animal ${id} is at another version than If-Match names; nothing was changed.`, {
    meta: { etag: petETag(id, current.version) },
  });
}
