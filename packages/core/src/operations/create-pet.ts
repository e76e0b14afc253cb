import { petETag } from '../domain/etag.js';
import { NewPet, Pet } from '../domain/pet-schemas.js';
import { defineOperation } from './operation.js';

/** SPEC 4.2: adds an animal; the service assigns its id, and its version is the first. */
export const createPet = defineOperation({
  operationId: 'createPet',
  procedure: 'create',
  method: 'POST',
  path: '/pets',
  summary: 'Add an animal',
  description: 'Adds an animal to the catalogue. The service assigns its `id`; `status` defaults to `available`.',
  tags: ['animals'],
  input: NewPet,
  output: Pet,
  successStatus: 201,
  writes: true,
  async run(input, { pets, meta }) {
    const pet = await pets.insert(input);
    meta.etag = petETag(pet.id, 1);
    return pet;
  },
});
