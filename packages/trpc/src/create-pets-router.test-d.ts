import type { IncomingMessage } from 'node:http';
import type { PetStore } from '@petstore/core';
import { initTRPC } from '@trpc/server';
import { describe, expectTypeOf, it } from 'vitest';
import { createPetsRouter } from './create-pets-router.js';

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

  it('takes the API key from the request by default, and types the procedures from the core', () => {
    const t = initTRPC.context<{ req: IncomingMessage }>().create();
    const pets = createPetsRouter(t.procedure, { store });
    const router = t.router({ pets: pets.procedures });
    type Outputs = import('@trpc/server').inferRouterOutputs<typeof router>;
    expectTypeOf<Outputs['pets']['create']>().toEqualTypeOf<import('@petstore/core').Pet>();
    expectTypeOf<Outputs['pets']['page']['nextCursor']>().toEqualTypeOf<string | null>();
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
