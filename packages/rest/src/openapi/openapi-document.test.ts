import { operations, Pet, Pets, NewPet, PetStatus, GetPetInput } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiObject as createOpenApiDocument } from './openapi-document.js';

const servers = { production: 'https://api.petstore.dev/v1', staging: 'https://staging.petstore.dev/v1' };
const document = createOpenApiDocument({ servers });
const list = document.paths!['/pets']!.get!;
const create = document.paths!['/pets']!.post!;
const get = document.paths!['/pets/{petId}']!.get!;
const all = [list, create, get];

type Response = {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: unknown }>;
};
const responses = (operation: typeof list) => operation.responses as Record<string, Response>;
const schemaOf = (response: Response | undefined) => response?.content?.['application/json']?.schema;
const ERROR = { $ref: '#/components/schemas/Error' };

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 titled Pet Store 1.0.0 with production and staging servers', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Pet Store', version: '1.0.0' });
    expect(document.servers).toEqual([
      { url: 'https://api.petstore.dev/v1', description: 'Production', 'x-internal': false },
      { url: 'https://staging.petstore.dev/v1', description: 'Staging', 'x-internal': false },
    ]);
    expect(createOpenApiDocument({ servers: { production: servers.production } }).servers).toHaveLength(1);
  });

  it('has the three operations at paths relative to the base, tagged animals', () => {
    expect(Object.keys(document.paths!)).toEqual(['/pets', '/pets/{petId}']);
    expect(all.map((op) => op.operationId)).toEqual(['listPets', 'createPet', 'getPet']);
    expect(all.every((op) => op.tags?.join() === 'animals')).toBe(true);
    expect(document.tags).toEqual([{ name: 'animals', description: expect.any(String) }]);
  });

  it('requires the bearer credential on every operation', () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of all) expect(op.security).toEqual([{ bearerAuth: [] }]);
  });

  it('answers createPet with 201 and the Pet, listPets with 200 and Pets plus a next Link', () => {
    expect(responses(create)['200']).toBeUndefined();
    expect(schemaOf(responses(create)['201'])).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(schemaOf(responses(list)['200'])).toEqual({ $ref: '#/components/schemas/Pets' });
    expect(responses(list)['200']?.headers?.Link).toMatchObject({ description: expect.stringContaining('rel="next"') });
    expect(schemaOf(responses(get)['200'])).toEqual({ $ref: '#/components/schemas/Pet' });
  });

  it('marks getPet deprecated with Deprecation, Sunset and Link headers and a 410', () => {
    expect(get.deprecated).toBe(true);
    expect(list.deprecated).toBeUndefined();
    expect(Object.keys(responses(get)['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Deprecation', 'Sunset', 'Link'])
    );
    expect(JSON.stringify(responses(get)['200']?.headers?.Sunset)).toContain('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(schemaOf(responses(get)['410'])).toEqual(ERROR);
  });

  it('documents every error status with the Error schema', () => {
    const statuses = (op: typeof list) =>
      Object.keys(responses(op)).filter((status) => status !== '200' && status !== '201');
    expect(statuses(list)).toEqual(['400', '401', '429', '503', 'default']);
    expect(statuses(create)).toEqual(['400', '401', '408', '409', '413', '415', '429', '503', 'default']);
    expect(statuses(get)).toEqual(['400', '401', '404', '410', '429', '503', 'default']);
    for (const op of all) for (const status of statuses(op)) expect(schemaOf(responses(op)[status])).toEqual(ERROR);
    expect(responses(create)['409']?.description).toContain('idempotency_key_reused');
  });

  it('documents the rate-limit headers and X-Request-Id on every response, Retry-After on every 429', () => {
    const components = document.components?.headers as Record<string, { schema: { type: string } }>;
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
      expect(components[name]?.schema.type).toBe('integer');
    }
    for (const op of all) {
      for (const response of Object.values(responses(op))) {
        expect(Object.keys(response.headers ?? {})).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'])
        );
      }
      expect(responses(op)['429']?.headers?.['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    }
  });

  it('documents the Idempotency-Key request header and the Idempotent-Replayed response header on createPet', () => {
    expect(create.parameters).toContainEqual(
      expect.objectContaining({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      })
    );
    expect(responses(create)['201']?.headers?.['Idempotent-Replayed']).toBeDefined();
    expect(create.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } },
    });
  });

  it('takes limit, status and cursor on listPets and an int64 petId on getPet', () => {
    const byName = Object.fromEntries(
      (list.parameters as { name: string; in: string; schema: unknown }[]).map((p) => [p.name, p])
    );
    expect(byName.limit).toMatchObject({
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    expect(byName.status).toMatchObject({ in: 'query', schema: { $ref: '#/components/schemas/PetStatus' } });
    expect(byName.cursor).toMatchObject({ in: 'query', schema: { type: 'string' } });
    expect(get.parameters).toEqual([
      expect.objectContaining({
        name: 'petId',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ type: 'integer', format: 'int64', minimum: 1 }),
      }),
    ]);
  });

  it('has the Pet, NewPet, Pets, PetStatus and Error schemas as SPEC describes them', () => {
    const schemas = document.components?.schemas as Record<string, Record<string, any>>;
    expect(Object.keys(schemas).sort()).toEqual(['Error', 'NewPet', 'Pet', 'PetStatus', 'Pets']);
    expect(schemas.Pet).toMatchObject({ required: ['id', 'name', 'categoryId', 'status'] });
    expect(schemas.Pet!.properties.id.format).toBe('int64');
    expect(schemas.Pet!.properties.categoryId.format).toBe('int64');
    expect(schemas.NewPet).toMatchObject({ required: ['name', 'categoryId'], additionalProperties: false });
    expect(schemas.NewPet!.properties.categoryId.format).toBe('int64');
    expect(schemas.NewPet!.properties.status).toMatchObject({
      default: 'available',
      $ref: '#/components/schemas/PetStatus',
    });
    expect(schemas.Pets).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Pet' }, maxItems: 100 });
    expect(schemas.PetStatus).toMatchObject({ type: 'string', enum: ['available', 'pending', 'sold'] });
    expect(schemas.Error).toMatchObject({ required: ['code', 'message', 'status'], additionalProperties: false });
    expect(schemas.Error!.properties.details.items).toMatchObject({ required: ['path', 'message'] });
  });

  it('emits x-stability for an operation whose definition sets it, and only then', () => {
    const beta = createOpenApiDocument({
      servers,
      operations: [{ ...operations.listPets, stability: 'beta' }, operations.createPet, operations.getPet],
    });
    expect(beta.paths!['/pets']!.get!['x-stability']).toBe('beta');
    expect(beta.paths!['/pets']!.post!['x-stability']).toBeUndefined();
    expect(all.some((op) => 'x-stability' in op)).toBe(false);
  });

  it('builds a new, equal document on every call', () => {
    const again = createOpenApiDocument({ servers });
    expect(again).toEqual(document);
    expect(again).not.toBe(document);
    again.info.title = 'changed';
    (again.components!.schemas!.Error as { required: string[] }).required.push('changed');
    (again.paths!['/pets']!.post!.parameters![0] as { name: string }).name = 'changed';
    expect(createOpenApiDocument({ servers })).toEqual(document);
  });

  it('leaves the shared core schemas as they were after generating the document twice', () => {
    const shared = { Pet, Pets, NewPet, PetStatus, GetPetInput, list: operations.listPets.input };
    const before = Object.fromEntries(
      Object.entries(shared).map(([name, s]) => [name, z.toJSONSchema(s, { io: 'input' })])
    );
    createOpenApiDocument({ servers });
    createOpenApiDocument({ servers });
    expect(operations.createPet.input.safeParse({ name: 'x', categoryId: '7' }).success).toBe(false);
    expect(operations.listPets.input.safeParse({ limit: '5' }).success).toBe(false);
    expect(operations.getPet.input.safeParse({ petId: '5' }).success).toBe(false);
    const after = Object.fromEntries(
      Object.entries(shared).map(([name, s]) => [name, z.toJSONSchema(s, { io: 'input' })])
    );
    expect(after).toEqual(before);
  });
});
