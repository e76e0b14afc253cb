import { createTRPCClient, httpBatchLink, TRPCClientError, type TRPCClient } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@petstore/trpc';

export type Pet = inferRouterOutputs<AppRouter>['pets']['create'];
export type NewPet = inferRouterInputs<AppRouter>['pets']['create'];
export type PetStoreTrpcClient = TRPCClient<AppRouter>;

/**
 * A tRPC client typed by the service's router; calls made in the same tick travel in one HTTP request.
 * @example const petstore = createPetStoreTrpcClient('http://127.0.0.1:3000/trpc', process.env.PETSTORE_KEY!)
 */
export function createPetStoreTrpcClient(url: string, apiKey: string): PetStoreTrpcClient {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url, headers: { authorization: `Bearer ${apiKey}` } })],
  });
}

/**
 * Whether a rejection came from the service; its Error body (`code`, `message`, `status`) is at `data?.error`.
 * @example catch (error) { if (isPetStoreError(error)) console.error(error.data?.error.code) }
 */
export function isPetStoreError(error: unknown): error is TRPCClientError<AppRouter> {
  return error instanceof TRPCClientError;
}

/**
 * Adds several animals in one batched request; the service assigns their ids.
 * @example const [a, b] = await createPets(petstore, [{ name: 'Rex', categoryId: 1 }, { name: 'Tom', categoryId: 2 }])
 */
export function createPets(client: PetStoreTrpcClient, pets: NewPet[]): Promise<Pet[]> {
  return Promise.all(pets.map((pet) => client.pets.create.mutate(pet)));
}

/**
 * One animal by id, or `undefined` when the service answers `not_found`.
 * @deprecated like `GET /pets/{petId}`, `pets.get` answers `gone` from 5 December 2030; use `pets.list`.
 * @example const pet = await findPet(petstore, 1)
 */
export async function findPet(client: PetStoreTrpcClient, petId: number): Promise<Pet | undefined> {
  try {
    return await client.pets.get.query({ petId });
  } catch (error) {
    if (isPetStoreError(error) && error.data?.error.code === 'not_found') return undefined;
    throw error;
  }
}
