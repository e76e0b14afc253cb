import type { IncomingMessage } from 'node:http';
import type { ErrorBody, Pet, PetStore } from '@petstore/core';
import { createTRPCClient, httpBatchLink, type TRPCClientError } from '@trpc/client';
import { initTRPC, type inferRouterInputs, type inferRouterOutputs } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { describe, expectTypeOf, it } from 'vitest';
import { createPetsRouter, petsResponseMeta } from './create-pets-router.js';
import { withPetStoreErrors } from './errors/with-pet-store-errors.js';
import { maxBatchSize } from './max-batch-size.js';

declare const store: PetStore;

describe('createPetsRouter in a host\'s tRPC server', () => {
  it('needs a principal hook when the host\'s context has no request to read a key from', () => {
    const t = initTRPC.context<{ user: { id: string } | undefined }>().create();
    // @ts-expect-error a context without `req` cannot give the default principal what it needs
    createPetsRouter(t.procedure, { store });
    createPetsRouter(t.procedure, {
      store,
      principal: (ctx) => (ctx.user ? { principal: { id: ctx.user.id, plan: 'free' } } : { apiKey: undefined }),
    });
    createPetsRouter(t.procedure, {
      store,
      // @ts-expect-error the hook reads what the host's context does not have
      principal: (ctx) => ({ apiKey: ctx.session.key }),
    });
  });

  it('mounts as it is under any name, and types the procedures from the core', () => {
    const t = initTRPC.context<{ req: IncomingMessage }>().create();
    const pets = createPetsRouter(t.procedure, { store });
    const router = t.router({ pets, animals: pets, hello: t.procedure.query(() => 'world') });
    type Outputs = inferRouterOutputs<typeof router>;
    expectTypeOf<Outputs['pets']['create']>().toEqualTypeOf<Pet>();
    expectTypeOf<Outputs['animals']['list']>().toEqualTypeOf<Pet[]>();
    expectTypeOf<Outputs['pets']['page']['nextCursor']>().toEqualTypeOf<string | null>();
    expectTypeOf<keyof Outputs['pets']>().toEqualTypeOf<'list' | 'create' | 'get' | 'page' | 'usage'>();
    expectTypeOf<inferRouterInputs<typeof router>['pets']['get']>().toEqualTypeOf<{ petId: number }>();
  });

  it('takes a base procedure whose middleware extends the context', () => {
    const t = initTRPC.context<{ req: Request }>().create();
    const authed = t.procedure.use(({ ctx, next }) => next({ ctx: { ...ctx, user: { id: 'u1' } } }));
    const pets = createPetsRouter(authed, { store, principal: (ctx) => ({ principal: { id: ctx.user.id, plan: 'pro' } }) });
    const router = t.router({ pets });
    expectTypeOf<inferRouterOutputs<typeof router>['pets']['get']>().toEqualTypeOf<Pet>();
    // What the adapters take: the headers of the pets calls, and the batch limit.
    createHTTPServer({ router, createContext: () => ({ req: new Request('http://x') }), responseMeta: petsResponseMeta(pets), maxBatchSize });
    void fetchRequestHandler({
      router,
      req: new Request('http://x/trpc/pets.list'),
      endpoint: '/trpc',
      createContext: ({ req }) => ({ req }),
      responseMeta: petsResponseMeta(pets),
      maxBatchSize,
    });
  });

  it('tells the host\'s clients of data.error through withPetStoreErrors, beside the host\'s own fields', () => {
    const t = initTRPC
      .context<{ req: IncomingMessage }>()
      .create({ errorFormatter: withPetStoreErrors(({ shape }) => ({ ...shape, data: { ...shape.data, host: 'formatted' as const } })) });
    const router = t.router({ pets: createPetsRouter(t.procedure, { store }) });
    type Data = NonNullable<TRPCClientError<typeof router>['data']>;
    expectTypeOf<Data['error']>().toEqualTypeOf<ErrorBody | undefined>();
    expectTypeOf<Data['host']>().toEqualTypeOf<'formatted'>();
    expectTypeOf<Data['httpStatus']>().toEqualTypeOf<number>();

    const plain = initTRPC.context<{ req: IncomingMessage }>().create({ errorFormatter: withPetStoreErrors() });
    const plainRouter = plain.router({ pets: createPetsRouter(plain.procedure, { store }) });
    expectTypeOf<NonNullable<TRPCClientError<typeof plainRouter>['data']>['error']>().toEqualTypeOf<ErrorBody | undefined>();

    const client = createTRPCClient<typeof router>({ links: [httpBatchLink({ url: 'http://127.0.0.1/trpc' })] });
    expectTypeOf(client.pets.list.query).returns.resolves.toEqualTypeOf<Pet[]>();
  });

  it('refuses an enterprise principal without its limits', () => {
    const t = initTRPC.context<{ user: string }>().create();
    createPetsRouter(t.procedure, {
      store,
      // @ts-expect-error an enterprise principal brings its limits
      principal: (ctx) => ({ principal: { id: ctx.user, plan: 'enterprise' } }),
    });
  });
});
