import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type Pet = components['schemas']['Pet'];
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
/** The body of every error response: `code` is one of the documented codes, `status` repeats the HTTP status. */
export type ErrorBody = components['schemas']['Error'];
/** The query of `GET /pets` without the cursor, which pagination supplies. */
export type ListQuery = Omit<NonNullable<paths['/pets']['get']['parameters']['query']>, 'cursor'>;
export type PetStoreClient = Client<paths>;

/** A call the service refused, with its typed Error body. */
export class PetStoreError extends Error {
  constructor(readonly body: ErrorBody) {
    super(`${body.status} ${body.code}: ${body.message}`);
    this.name = 'PetStoreError';
  }
}

/**
 * A typed client for the REST API; `baseUrl` is the base address, ending in `/v1`.
 * @example const client = createPetStoreClient('http://127.0.0.1:3000/v1', process.env.PETSTORE_KEY!)
 */
export function createPetStoreClient(baseUrl: string, apiKey: string): PetStoreClient {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}

/**
 * Adds an animal: 201 with the Pet and the `id` the service assigned.
 * @example const pet = await createPet(client, { name: 'Rex', categoryId: 1 })
 */
export async function createPet(client: PetStoreClient, pet: NewPet): Promise<Pet> {
  const { data, error } = await client.POST('/pets', { body: pet });
  if (error) throw new PetStoreError(error);
  return data;
}

/**
 * The target of the `rel="next"` link in a `Link` header, resolved against the response's URL.
 * @example nextLink('</v1/pets?cursor=cDEuMg>; rel="next"', response.url)?.searchParams.get('cursor') // 'cDEuMg'
 */
export function nextLink(header: string | null, base: string): URL | undefined {
  for (const link of header?.split(/,(?=\s*<)/) ?? []) {
    const [, target, params = ''] = /^\s*<([^>]*)>(.*)$/s.exec(link) ?? [];
    const [, quoted, token] = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params) ?? [];
    const rels = (quoted ?? token ?? '').toLowerCase().split(/\s+/);
    if (target !== undefined && rels.includes('next')) return new URL(target, base);
  }
  return undefined;
}

/**
 * Each page of `GET /pets`, following `Link: rel="next"` until the last page, which has none. The link carries
 * the same `limit` and `status`, so only its opaque `cursor` is read.
 * @example for await (const page of petPages(client, { status: 'available', limit: 100 })) show(page)
 */
export async function* petPages(client: PetStoreClient, query: ListQuery = {}): AsyncGenerator<Pet[]> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await client.GET('/pets', { params: { query: { ...query, cursor } } });
    if (error) throw new PetStoreError(error);
    yield data;
    cursor = nextLink(response.headers.get('Link'), response.url)?.searchParams.get('cursor') ?? undefined;
  } while (cursor !== undefined);
}

/**
 * Every animal, optionally with one status, fetched 100 to a page.
 * @example const sold = await listAllPets(client, 'sold')
 */
export async function listAllPets(client: PetStoreClient, status?: PetStatus): Promise<Pet[]> {
  const pets: Pet[] = [];
  for await (const page of petPages(client, { limit: 100, status })) pets.push(...page);
  return pets;
}

/**
 * One animal by id, or `undefined` when there is none (404 `not_found`).
 * @deprecated `GET /pets/{petId}` answers 410 `gone` from 5 December 2030 (its `Sunset` header); use
 * {@link listAllPets} with a `status` instead.
 * @example const pet = await getPet(client, 1)
 */
export async function getPet(client: PetStoreClient, petId: number): Promise<Pet | undefined> {
  const { data, error } = await client.GET('/pets/{petId}', { params: { path: { petId } } });
  if (error?.code === 'not_found') return undefined;
  if (error) throw new PetStoreError(error);
  return data;
}
