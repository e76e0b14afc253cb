import { z } from 'zod';
import { GetPetInput, NewPet, Pet, PetStatus } from '../domain/pet-schemas.js';
import { invalidRequest } from '../domain/validate.js';
import { defineOperation } from './operation.js';
import { conditionalChange } from './precondition.js';

/**
 * The input of `updatePet`: the animal (from the path) and one or more of its fields (the body, named `PetChanges`).
 * That one is needed is checked by `run` (zod cannot take the path field out of an object with a refinement).
 */
const PetChanges = z
  .strictObject({
    petId: GetPetInput.shape.petId,
    name: NewPet.shape.name.optional(),
    categoryId: NewPet.shape.categoryId.optional(),
    status: PetStatus.optional(),
  })
  .meta({ id: 'PetChanges', minProperties: 1 });

const nothingToChange = () => invalidRequest([{ message: 'must change at least one of name, categoryId and status' }]);

/** Changes an animal: one statement raises its version, conditioned by `If-Match` when sent. */
export const updatePet = defineOperation({
  operationId: 'updatePet',
  procedure: 'update',
  method: 'PATCH',
  path: '/pets/{petId}',
  summary: 'Change an animal',
  description:
    'Changes one or more of `name`, `categoryId` and `status`, answering the animal as it now is with its new `ETag`. With `If-Match`, only while the animal is at a version it names (else 412 `precondition_failed` with the current `ETag`, nothing changed).',
  tags: ['animals'],
  input: PetChanges,
  output: Pet,
  successStatus: 200,
  writes: true,
  conditional: true,
  stability: 'experimental',
  async run({ petId, ...changes }, env) {
    if (changes.name === undefined && changes.categoryId === undefined && changes.status === undefined) throw nothingToChange();
    const change = (expected: Parameters<typeof env.pets.update>[2]) => env.pets.update(petId, changes, expected);
    const { pet } = await conditionalChange(env, petId, change, changes.status !== undefined);
    return pet;
  },
});
