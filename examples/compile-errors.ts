// Calls the types refuse. Each is marked with a `@ts-expect-error` directive, so `tsc -p examples/tsconfig.json`
// fails if one of them compiles; clients.test.ts checks that each fails without its directive.
import { createPetStoreClient } from './rest-client/client.js';
import { createPetStoreTrpcClient } from './trpc-client/client.js';

const rest = createPetStoreClient('http://127.0.0.1:3000/v1', 'psk_example');
const trpc = createPetStoreTrpcClient('http://127.0.0.1:3000/trpc', 'psk_example');

export async function restCallsThatDoNotCompile() {
  // @ts-expect-error categoryId is an integer, not a string
  await rest.POST('/pets', { body: { name: 'x', categoryId: '1' } });
  // @ts-expect-error name is required
  await rest.POST('/pets', { body: { categoryId: 1 } });
  // @ts-expect-error status is one of available, pending, sold
  await rest.GET('/pets', { params: { query: { status: 'lost' } } });
  // @ts-expect-error a change's status is one of available, pending, sold
  await rest.PATCH('/pets/{petId}', { params: { path: { petId: 1 } }, body: { status: 'lost' } });
  const { error } = await rest.GET('/pets/{petId}', { params: { path: { petId: 1 } } });
  // @ts-expect-error the Error body's code is one of the documented codes
  return error?.code === 'notfound';
}

export async function trpcCallsThatDoNotCompile() {
  // @ts-expect-error categoryId is a number, not a string
  await trpc.pets.create.mutate({ name: 'x', categoryId: '1' });
  // @ts-expect-error status is one of available, pending, sold
  await trpc.pets.list.query({ status: 'lost' });
  // @ts-expect-error pets.delete takes the animal's id, not its name
  await trpc.pets.delete.mutate({ name: 'Rex' });
}
