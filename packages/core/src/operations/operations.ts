import type { z } from 'zod';
import { GetPetInput, ListPetsInput, NewPet, Pet, Pets } from '../domain/pet-schemas.js';

/** Where an operation stands: absent for stable, or an `x-stability` marker. */
export type Stability = 'experimental' | 'beta';

/** The deprecation of an operation: when it was announced, when it goes, what replaces it. */
export interface Deprecation {
  /** When the deprecation was announced (the `Deprecation` header, RFC 9745). */
  readonly since: Date;
  /** From this instant on the operation answers 410 `gone` (the `Sunset` header, RFC 8594). */
  readonly sunset: Date;
  /** Path of the replacement, relative to the base address. */
  readonly successor: string;
}

/**
 * One operation of the interface, defined once; REST routes, tRPC procedures and the OpenAPI document derive from it.
 * @example operations.getPet.path // '/pets/{petId}'
 */
export interface OperationDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  readonly operationId: string;
  /** The procedure name under the `pets` router of tRPC. */
  readonly procedure: 'list' | 'create' | 'get';
  readonly method: 'GET' | 'POST';
  /** Path relative to the base address, with `{param}` placeholders. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** The input, validated by the core whoever calls: typed callers send it as is, REST reads it from HTTP. */
  readonly input: Input;
  /** Where REST reads the input from. */
  readonly inputFrom: 'query' | 'path' | 'body';
  readonly output: Output;
  readonly successStatus: 200 | 201;
  readonly deprecation?: Deprecation;
  readonly stability?: Stability;
}

const define = <I extends z.ZodType, O extends z.ZodType>(op: OperationDefinition<I, O>) =>
  Object.freeze(op);

/** The three operations of SPEC section 4. */
export const operations = Object.freeze({
  listPets: define({
    operationId: 'listPets',
    procedure: 'list',
    method: 'GET',
    path: '/pets',
    summary: 'List animals',
    description:
      'Returns a page of animals in ascending `id` order, optionally filtered by status. When more exist, the `Link` header carries the next page (`rel="next"`).',
    tags: ['animals'],
    input: ListPetsInput,
    inputFrom: 'query',
    output: Pets,
    successStatus: 200,
  }),
  createPet: define({
    operationId: 'createPet',
    procedure: 'create',
    method: 'POST',
    path: '/pets',
    summary: 'Add an animal',
    description: 'Adds an animal to the catalogue. The service assigns its `id`; `status` defaults to `available`.',
    tags: ['animals'],
    input: NewPet,
    inputFrom: 'body',
    output: Pet,
    successStatus: 201,
  }),
  getPet: define({
    operationId: 'getPet',
    procedure: 'get',
    method: 'GET',
    path: '/pets/{petId}',
    summary: 'Get an animal (deprecated)',
    description:
      'Returns one animal by its identifier. Deprecated: removed on 5 December 2030; use `GET /pets` with the `status` filter.',
    tags: ['animals'],
    input: GetPetInput,
    inputFrom: 'path',
    output: Pet,
    successStatus: 200,
    deprecation: {
      since: new Date('2026-11-21T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: '/pets',
    },
  }),
});

/** The name of one of the operations. */
export type OperationId = keyof typeof operations;
