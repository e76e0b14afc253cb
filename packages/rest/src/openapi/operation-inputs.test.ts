import { defineOperation, operations, Pet, PetStatus } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiObject } from './openapi-document.js';

const servers = { production: 'https://api.petstore.dev/v1' };
const notRun = () => Promise.reject(new Error('the document never runs an operation'));
const petId = z.int().min(1);

const lifecycle = { summary: 's', description: 'd', tags: ['animals'], output: Pet, successStatus: 200 } as const;
const setStatus = defineOperation({
  ...lifecycle,
  operationId: 'setPetStatus',
  procedure: 'setStatus',
  method: 'PATCH',
  path: '/pets/{petId}',
  input: z.strictObject({ petId, status: PetStatus }).meta({ id: 'PetStatusChange' }),
  writes: true,
  run: notRun,
});
const rename = defineOperation({
  ...lifecycle,
  operationId: 'renamePet',
  procedure: 'rename',
  method: 'PUT',
  path: '/pets/{petId}/name',
  input: z.strictObject({ petId, name: z.string() }),
  writes: true,
  run: notRun,
});
const remove = defineOperation({
  ...lifecycle,
  operationId: 'deletePet',
  procedure: 'delete',
  method: 'DELETE',
  path: '/pets/{petId}',
  input: z.strictObject({ petId, reason: z.string().optional() }),
  writes: true,
  run: notRun,
});
const adopt = defineOperation({
  ...lifecycle,
  operationId: 'adoptPet',
  procedure: 'adopt',
  method: 'POST',
  path: '/pets/{petId}/adoption',
  input: z.strictObject({ petId }),
  writes: true,
  run: notRun,
});

// A document of the made-up operations alone, so that none of them collides with a real one as the registry grows.
const document = openApiObject({ servers, operations: [setStatus, rename, remove, adopt] });
const names = (parameters: unknown) => (parameters as { name: string; in: string }[]).map((p) => `${p.in} ${p.name}`);

describe('where the document says an operation input travels', () => {
  it('sends a named input less its path fields as a body under the input\'s name', () => {
    const patch = document.paths!['/pets/{petId}']!.patch!;
    expect(names(patch.parameters)).toEqual(['path petId', 'header Idempotency-Key']);
    expect(patch.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/PetStatusChange' } } },
    });
    expect(document.components!.schemas!.PetStatusChange).toEqual({
      type: 'object',
      properties: { status: { $ref: '#/components/schemas/PetStatus' } },
      required: ['status'],
      additionalProperties: false,
    });
  });

  it('writes the body of an unnamed input in place, without its path fields', () => {
    const put = document.paths!['/pets/{petId}/name']!.put!;
    expect(names(put.parameters)).toEqual(['path petId', 'header Idempotency-Key']);
    expect(put.requestBody).toMatchObject({
      content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } },
    });
    expect(JSON.stringify(put.requestBody)).not.toContain('petId');
  });

  it('reads DELETE input from the path and the query string, with no body', () => {
    const del = document.paths!['/pets/{petId}']!.delete!;
    expect(names(del.parameters)).toEqual(['path petId', 'query reason', 'header Idempotency-Key']);
    expect(del.requestBody).toBeUndefined();
  });

  it('has no body when the path holds every field, though the method takes one', () => {
    const post = document.paths!['/pets/{petId}/adoption']!.post!;
    expect(names(post.parameters)).toEqual(['path petId', 'header Idempotency-Key']);
    expect(post.requestBody).toBeUndefined();
  });

  it('refuses two operations on one method and path, and path input that is not an object', () => {
    expect(() => openApiObject({ servers, operations: [operations.getPet, operations.getPet] })).toThrow(
      'Two operations are defined for GET /pets/{petId}.',
    );
    const scalar = { ...operations.getPet, input: z.int() };
    expect(() => openApiObject({ servers, operations: [scalar] })).toThrow('must be an object');
  });
});
