import type { OperationDefinition } from '@petstore/core';
import type { z } from 'zod';
import type { ZodOpenApiRequestBodyObject } from 'zod-openapi';
import { inputSources } from '../input-sources.js';
import { inputObject, maskOf } from './parameters.js';

/** The JSON body schema of each operation that reads one. */
export type BodySchemas = ReadonlyMap<OperationDefinition, z.ZodType>;

/**
 * The schema of each operation's JSON body: its input minus the path fields; none when it reads no body (GET,
 * DELETE) or the path holds every field. The input itself when the path holds none, so an input with a meta id
 * (`NewPet`) is referenced as its component. Built once per document: zod-openapi matches schemas by identity, so
 * the paths and the components must be given the same one.
 * @example bodySchemas([operations.createPet]).get(operations.createPet) === NewPet // true
 */
export function bodySchemas(definitions: readonly OperationDefinition[]): BodySchemas {
  const bodies = new Map<OperationDefinition, z.ZodType>();
  for (const op of definitions) {
    const sources = inputSources(op);
    if (!sources.body) continue;
    if (sources.path.length === 0) {
      bodies.set(op, op.input);
      continue;
    }
    const body = inputObject(op).omit(maskOf(sources.path));
    if (Object.keys(body.shape).length > 0) bodies.set(op, body);
  }
  return bodies;
}

/**
 * The body schemas to register by name: an input with a meta id, less its path fields, under the input's id (the
 * document never renders the whole input, so the id is free).
 * @example components.schemas = { ...namedBodies(bodySchemas(definitions)) }
 */
export function namedBodies(bodies: BodySchemas): Record<string, z.ZodType> {
  const named: Record<string, z.ZodType> = {};
  for (const [op, body] of bodies) {
    const id = op.input.meta()?.id;
    if (typeof id === 'string' && body !== op.input) named[id] = body;
  }
  return named;
}

/**
 * The request body of an operation, if it reads one: required JSON.
 * @example requestBody(bodies.get(operations.createPet))?.content['application/json']?.schema === NewPet // true
 */
export function requestBody(schema: z.ZodType | undefined): ZodOpenApiRequestBodyObject | undefined {
  return schema && { required: true, content: { 'application/json': { schema } } };
}
