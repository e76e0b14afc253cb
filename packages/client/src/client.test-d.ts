import type { ErrorCode as ServiceErrorCode, NewPet, Pet } from '@petstore/core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createClient,
  PetStoreApiError,
  type ErrorCode,
  type OperationInput,
  type OperationOutput,
  type PageableOperationId,
  type PageItem,
} from './index.js';

const petstore = createClient({ baseUrl: 'https://api.example.com/v1' });

describe('the client’s types', () => {
  it('are the operations’ zod input and output types', () => {
    expectTypeOf<OperationInput<'createPet'>>().toEqualTypeOf<NewPet>();
    expectTypeOf<OperationOutput<'createPet'>>().toEqualTypeOf<Pet>();
    expectTypeOf(petstore.createPet).returns.resolves.toEqualTypeOf<Pet>();
    expectTypeOf(petstore.listPets).returns.resolves.toEqualTypeOf<Pet[]>();
  });

  it('page through the listings only, item by item', () => {
    expectTypeOf<PageableOperationId>().toEqualTypeOf<'listPets' | 'listOrders' | 'listWebhookDeliveries'>();
    expectTypeOf<PageItem<'listPets'>>().toEqualTypeOf<Pet>();
    expectTypeOf(petstore.paginate('listPets')).toEqualTypeOf<AsyncGenerator<Pet, void, undefined>>();
  });

  it('make the input optional only when every field is', () => {
    expectTypeOf(petstore.listPets).parameter(0).toEqualTypeOf<OperationInput<'listPets'> | undefined>();
    expectTypeOf(petstore.getPet).parameter(0).toEqualTypeOf<{ petId: number }>();
    // @ts-expect-error the input of getPet is required
    void petstore.getPet();
  });

  it("type an error's code as the service's error codes and the client's own, not any string", () => {
    expectTypeOf<PetStoreApiError['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ErrorCode>().toEqualTypeOf<ServiceErrorCode | 'unexpected_response' | 'response_too_large' | 'repeated_cursor'>();
    expectTypeOf<string>().not.toExtend<PetStoreApiError['code']>();
    const error = new PetStoreApiError({ code: 'not_found', status: 404, message: 'No animal 7.' });
    // @ts-expect-error no error has this code
    void (error.code === 'no_such_code');
    // @ts-expect-error nor can one be made with it
    void new PetStoreApiError({ code: 'no_such_code', status: 400, message: '' });
  });
});
