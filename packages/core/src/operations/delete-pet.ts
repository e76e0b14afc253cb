import { z } from 'zod';
import { GetPetInput } from '../domain/pet-schemas.js';
import { defineOperation } from './operation.js';
import { conditionalChange } from './precondition.js';

/** Deletes an animal: gone from every list and `get`, its id never reused; conditioned by `If-Match` when sent. */
export const deletePet = defineOperation({
  operationId: 'deletePet',
  procedure: 'delete',
  method: 'DELETE',
  path: '/pets/{petId}',
  summary: 'Delete an animal',
  description:
    'Deletes one animal: 204 with no body, and it is gone from every list and `get`; deleting it again is 404. Its id is never given to another animal. With `If-Match`, only while the animal is at a version it names (else 412 `precondition_failed` with the current `ETag`, nothing deleted).',
  tags: ['animals'],
  input: GetPetInput,
  output: z.null(),
  successStatus: 204,
  writes: true,
  conditional: true,
  stability: 'experimental',
  async run({ petId }, env) {
    await conditionalChange(env, petId, (expected) => env.pets.delete(petId, expected), true);
    // A deleted animal has no version left to name.
    delete env.meta.etag;
    return null;
  },
});
