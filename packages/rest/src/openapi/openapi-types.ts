import type { OpenAPIObject } from 'trpc-to-openapi';

type Components = NonNullable<OpenAPIObject['components']>;

/** Parts of an OpenAPI 3.1 document, named from trpc-to-openapi's document type (`const op: Operation = …`). */
export type Operation = NonNullable<NonNullable<OpenAPIObject['paths']>[string]['get']>;
export type Schema = NonNullable<Components['schemas']>[string];
export type Header = NonNullable<Components['headers']>[string];
export type Parameter = Exclude<NonNullable<Operation['parameters']>[number], { $ref: string }>;
