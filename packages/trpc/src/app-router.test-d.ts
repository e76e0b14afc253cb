import type { operations, Pet } from '@petstore/core';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { createTRPCClient, httpLink, type TRPCClientError } from '@trpc/client';
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { AppRouter } from './app-router.js';

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;
const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: 'http://127.0.0.1/trpc' })] });

/** What the registry says each operation's procedure takes and gives: its input and output schemas, by procedure. */
type Operations = typeof operations;
type RegistryInputs = { [Id in keyof Operations as Operations[Id]['procedure']]: z.input<Operations[Id]['input']> };
type RegistryOutputs = { [Id in keyof Operations as Operations[Id]['procedure']]: z.output<Operations[Id]['output']> };

describe('the AppRouter type', () => {
  it('takes the core input types and gives the core output types', () => {
    expectTypeOf<Inputs['pets']['create']>().toEqualTypeOf<{
      name: string;
      categoryId: number;
      status?: 'available' | 'pending' | 'sold' | undefined;
    }>();
    expectTypeOf<Inputs['pets']['get']>().toEqualTypeOf<{ petId: number }>();
    expectTypeOf<Outputs['pets']['list']>().toEqualTypeOf<Pet[]>();
    expectTypeOf<Outputs['pets']['create']>().toEqualTypeOf<Pet>();
  });

  it('has a procedure for each operation of the registry, typed by its schemas', () => {
    expectTypeOf<{ [P in keyof RegistryInputs]: Inputs['pets'][P] }>().toEqualTypeOf<RegistryInputs>();
    expectTypeOf<{ [P in keyof RegistryOutputs]: Outputs['pets'][P] }>().toEqualTypeOf<RegistryOutputs>();
    expectTypeOf<string>().not.toExtend<keyof RegistryInputs>();
  });

  it('rejects a wrong input at compile time', () => {
    // @ts-expect-error categoryId is a number, not a string
    void client.pets.create.mutate({ name: 'Rex', categoryId: 'x' });
    // @ts-expect-error name is required
    void client.pets.create.mutate({ categoryId: 1 });
    // @ts-expect-error the service assigns the id
    void client.pets.create.mutate({ id: 1, name: 'Rex', categoryId: 1 });
    // @ts-expect-error status is one of available, pending, sold
    void client.pets.list.query({ status: 'lost' });
    // @ts-expect-error petId is a number
    void client.pets.get.query({ petId: '5' });
  });

  it('types the Error body of a failure at error.data.error', () => {
    expectTypeOf<NonNullable<TRPCClientError<AppRouter>['data']>['error']>().toEqualTypeOf<
      import('@petstore/core').ErrorBody
    >();
  });
});
