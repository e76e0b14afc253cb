import type { z } from 'zod';
import type { operations } from './operations.js';

type Operations = typeof operations;
type Types<K extends OperationId> = NonNullable<Operations[K]['~types']>;

/** The name of one of the service's operations. */
export type OperationId = keyof Operations & string;

/**
 * What a call of the operation takes: its zod input schema's input type (defaults may be left out).
 * @example const input: OperationInput<'createPet'> = { name: 'Rex', categoryId: 1 }
 */
export type OperationInput<K extends OperationId> = z.input<Types<K>['input']>;

/**
 * What a call of the operation answers: its zod output schema's type.
 * @example const pet: OperationOutput<'getPet'> = await petstore.getPet({ petId: 1 })
 */
export type OperationOutput<K extends OperationId> = z.output<Types<K>['output']>;

/** The operations that answer a list and take a `cursor`: the ones `paginate` follows. */
export type PageableOperationId = {
  // An input of no fields (`{}`, whose keys zod types as any string) takes no cursor either.
  [K in OperationId]: OperationOutput<K> extends readonly unknown[]
    ? string extends keyof OperationInput<K>
      ? never
      : 'cursor' extends keyof OperationInput<K>
        ? K
        : never
    : never;
}[OperationId];

/** One item of a pageable operation's answer. */
export type PageItem<K extends PageableOperationId> = OperationOutput<K> extends readonly (infer Item)[] ? Item : never;
