import { petETag } from '../domain/etag.js';
import { GetPetInput, Pet } from '../domain/pet-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** SPEC 4.3: one animal by its id. Deprecated; from its sunset on the store answers 410 `gone`. */
export const getPet = defineOperation({
  operationId: 'getPet',
  procedure: 'get',
  method: 'GET',
  path: '/pets/{petId}',
  summary: 'Get an animal (deprecated)',
  description:
    'Returns one animal by its identifier. Deprecated: removed on 5 December 2030; use `GET /pets` with the `status` filter.',
  tags: ['animals'],
  input: GetPetInput,
  output: Pet,
  successStatus: 200,
  writes: false,
  conditional: true,
  deprecation: {
    since: new Date('2026-11-21T00:00:00Z'),
    sunset: new Date('2030-12-05T00:00:00Z'),
    successor: '/pets',
  },
  async run(input, { pets, meta }) {
    const found = await pets.findById(input.petId);
    if (!found) throw new PetStoreError('not_found', `No animal with id ${input.petId}.`);
    meta.etag = petETag(found.pet.id, found.version);
    return found.pet;
  },
});
