import { describe, expectTypeOf, it } from 'vitest';
import type { CallContext, GetPetInput, ListPetsInput, NewPet, Outcome, Pet, PetStore } from '../index.js';

declare const store: PetStore;

describe('the PetStore type', () => {
  it('has a typed method per operation, with the input callers send and the output it answers', () => {
    expectTypeOf(store.listPets).toEqualTypeOf<(input: ListPetsInput, context: CallContext) => Promise<Outcome<readonly Pet[]>>>();
    expectTypeOf(store.createPet).toEqualTypeOf<(input: NewPet, context: CallContext) => Promise<Outcome<Pet>>>();
    expectTypeOf(store.getPet).toEqualTypeOf<(input: GetPetInput, context: CallContext) => Promise<Outcome<Pet>>>();
  });

  it('rejects a wrong input at compile time', () => {
    // @ts-expect-error categoryId is a number, not a string
    void store.createPet({ name: 'Rex', categoryId: '1' }, {});
    // @ts-expect-error petId is required
    void store.getPet({}, {});
    // @ts-expect-error a page is frozen: it cannot be changed in place
    void store.listPets({}, {}).then(({ data }) => data.push({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }));
  });
});
