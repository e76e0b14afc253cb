import type { AppRouter } from '@petstore/trpc';
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink, TRPCClientError, type TRPCLink } from '@trpc/client';
import { expect } from 'vitest';

/** Routers a contract client can call: ours (`AppRouter`), or a host's with the pets procedures under `pets`. */
type PetsRouterLike = Pick<AppRouter, '_def'> extends never ? never : AppRouter;

/**
 * The tRPC contract of the pets procedures, on the real @trpc/client over httpLink, httpBatchLink and
 * httpBatchStreamLink: list, page, create, the deprecated get, and the documented errors. Runs unchanged against the
 * service's own `/trpc` and against the procedures mounted in a host's tRPC server. `status` keeps runs apart.
 * @example await trpcContract('http://127.0.0.1:3000/trpc', { authorization: `Bearer ${key}` }, 'sold')
 */
export async function trpcContract(url: string, headers: Record<string, string>, status: 'available' | 'pending' | 'sold') {
  const links: [string, () => TRPCLink<PetsRouterLike>][] = [
    ['httpLink', () => httpLink({ url, headers })],
    ['httpBatchLink', () => httpBatchLink({ url, headers })],
    ['httpBatchStreamLink', () => httpBatchStreamLink({ url, headers })],
  ];
  for (const [name, link] of links) {
    const client = createTRPCClient<PetsRouterLike>({ links: [link()] });
    const created = await client.pets.create.mutate({ name: `via ${name}`, categoryId: 4, status });
    expect(created).toMatchObject({ name: `via ${name}`, categoryId: 4, status });
    expect(await client.pets.get.query({ petId: created.id })).toEqual(created);
    const [page, list] = await Promise.all([
      client.pets.page.query({ status, limit: 100 }),
      client.pets.list.query({ status, limit: 100 }),
    ]);
    expect(list.map((pet) => pet.id)).toContain(created.id);
    expect(page.items).toEqual(list);

    const invalid = await client.pets.create.mutate({ name: '', categoryId: 1 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(TRPCClientError);
    expect((invalid as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'BAD_REQUEST',
      httpStatus: 400,
      error: { code: 'invalid_request', status: 400, details: [{ path: 'name' }] },
    });
    const missing = await client.pets.get.query({ petId: 2 ** 40 }).catch((error: unknown) => error);
    expect((missing as TRPCClientError<AppRouter>).data).toMatchObject({ httpStatus: 404, error: { code: 'not_found' } });

    const anonymous = createTRPCClient<PetsRouterLike>({ links: [httpLink({ url })] });
    const refused = await anonymous.pets.list.query({}).catch((error: unknown) => error);
    expect((refused as TRPCClientError<AppRouter>).data).toMatchObject({
      code: 'UNAUTHORIZED',
      httpStatus: 401,
      error: { code: 'missing_api_key', status: 401 },
    });
  }
}
