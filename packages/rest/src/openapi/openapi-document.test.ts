import { operations, Pet, Pets, NewPet, PetStatus, GetPetInput, type OperationDefinition } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inputSources } from '../input-sources.js';
import { openApiObject as createOpenApiDocument } from './openapi-document.js';

const servers = { production: 'https://api.petstore.dev/v1', staging: 'https://staging.petstore.dev/v1' };
const document = createOpenApiDocument({ servers });
const list = document.paths!['/pets']!.get!;
const create = document.paths!['/pets']!.post!;
const get = document.paths!['/pets/{petId}']!.get!;
const all = [list, create, get];
const definitions = Object.values(operations) as OperationDefinition[];
const entryOf = (op: OperationDefinition) =>
  document.paths![op.path]![op.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete']!;
/** The ids of the named schemas (meta ids) a schema holds, itself included, as zod's JSON Schema extracts them. */
const namedIn = (schema: z.ZodType, io: 'input' | 'output') => {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as { $ref?: string; $defs?: object };
  return Object.keys(json.$defs ?? {});
};

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

  it('has the three operations of SPEC at paths relative to the base, tagged animals', () => {
    expect(all.map((op) => op.operationId)).toEqual(['listPets', 'createPet', 'getPet']);
    expect(all.every((op) => op.tags?.join() === 'animals')).toBe(true);
  });

  it('has every operation of the registry at its path and method, with its id, summary, description and tags', () => {
    expect(Object.keys(document.paths!)).toEqual([...new Set(definitions.map((op) => op.path))]);
    for (const op of definitions) {
      expect(entryOf(op), op.operationId).toMatchObject({
        operationId: op.operationId,
        summary: op.summary,
        description: op.description,
        tags: [...op.tags],
      });
    }
    const tags = [...new Set(definitions.flatMap((op) => op.tags))];
    // A new tag needs its description in TAG_DESCRIPTIONS (openapi-document.ts).
    expect(document.tags).toEqual(tags.map((name) => ({ name, description: expect.any(String) })));
  });

  it('requires the bearer credential on every operation', () => {
    expect(document.components?.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const op of definitions) expect(entryOf(op).security, op.operationId).toEqual([{ bearerAuth: [] }]);
  });

  it('marks deprecated and x-stability on every operation exactly as its definition does', () => {
    for (const op of definitions) {
      const entry = entryOf(op) as { deprecated?: boolean; 'x-stability'?: string };
      expect(entry.deprecated, op.operationId).toBe(op.deprecation ? true : undefined);
      expect(entry['x-stability'], op.operationId).toBe(op.stability);
    }
  });

  it('answers every operation with its success status and output, and each error status it can answer with', () => {
    for (const op of definitions) {
      const statuses = Object.keys(responses(entryOf(op)));
      const sources = inputSources(op);
      const expected = [
        String(op.successStatus),
        '400',
        '401',
        ...(sources.path.length > 0 ? ['404'] : []),
        ...(op.writes ? ['409'] : []),
        ...(op.deprecation ? ['410'] : []),
        ...(op.conditional ? [op.writes ? '412' : '304'] : []),
        ...(sources.body ? ['408', '413', '415'] : []),
        '429',
        '503',
        'default',
      ];
      expect(statuses.sort(), op.operationId).toEqual(expected.sort());
      for (const status of statuses.filter((status) => status !== String(op.successStatus) && status !== '304')) {
        expect(schemaOf(responses(entryOf(op))[status]), `${op.operationId} ${status}`).toEqual(ERROR);
      }
    }
  });

  it('reads every path field from the path, and the rest from the query (GET, DELETE) or a body of its own', () => {
    for (const op of definitions) {
      const entry = entryOf(op);
      const sources = inputSources(op);
      const parameters = (entry.parameters ?? []) as { name: string; in: string; required?: boolean }[];
      const shape = (op.input as z.ZodObject).shape;
      expect(parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.required]), op.operationId).toEqual(
        sources.path.map((name) => [name, true]),
      );
      const rest = Object.keys(shape).filter((name) => !sources.path.includes(name));
      expect(parameters.filter((p) => p.in === 'query').map((p) => p.name), op.operationId).toEqual(sources.body ? [] : rest);
      expect(entry.requestBody !== undefined, op.operationId).toBe(sources.body && rest.length > 0);
      const named = op.input.meta()?.id;
      if (entry.requestBody && typeof named === 'string') {
        expect(schemaOf(entry.requestBody as Response), op.operationId).toEqual({ $ref: `#/components/schemas/${named}` });
        const body = (document.components!.schemas as Record<string, { properties: object }>)[named]!;
        expect(Object.keys(body.properties).sort(), op.operationId).toEqual([...rest].sort());
      }
    }
  });

  it('takes an Idempotency-Key on every operation that writes, and on no other', () => {
    for (const op of definitions) {
      const entry = entryOf(op);
      const header = (entry.parameters as { name: string; in: string }[] | undefined)?.find((p) => p.name === 'Idempotency-Key');
      expect(header?.in, op.operationId).toBe(op.writes ? 'header' : undefined);
      expect(responses(entry)[String(op.successStatus)]?.headers?.['Idempotent-Replayed'] !== undefined, op.operationId).toBe(op.writes);
    }
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

  it('documents every error status of the three SPEC operations with the Error schema', () => {
    const statuses = (op: typeof list) =>
      Object.keys(responses(op)).filter((status) => status !== '200' && status !== '201' && status !== '304');
    expect(statuses(list)).toEqual(['400', '401', '429', '503', 'default']);
    expect(statuses(create)).toEqual(['400', '401', '408', '409', '413', '415', '429', '503', 'default']);
    expect(statuses(get)).toEqual(['400', '401', '404', '410', '429', '503', 'default']);
    for (const op of [list, get]) expect(responses(op)['304']?.content).toBeUndefined();
    for (const op of all) for (const status of statuses(op)) expect(schemaOf(responses(op)[status])).toEqual(ERROR);
    expect(responses(create)['409']?.description).toContain('idempotency_key_reused');
  });

  it('documents the rate-limit headers and X-Request-Id on every response, Retry-After on every 429', () => {
    const components = document.components?.headers as Record<string, { schema: { type: string } }>;
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) {
      expect(components[name]?.schema.type).toBe('integer');
    }
    for (const op of definitions.map(entryOf)) {
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
      expect.objectContaining({ name: 'If-None-Match', in: 'header', required: false }),
    ]);
  });

  it('names Error and every named schema of the operations\' outputs, bodies and parameters, and nothing else', () => {
    const names = definitions.flatMap((op) => [
      ...namedIn(op.output, 'output'),
      // A body is the input less its path fields, under the input's own name; without a body only its fields count.
      ...namedIn(op.input, 'input').filter((id) => inputSources(op).body || id !== op.input.meta()?.id),
    ]);
    expect(Object.keys(document.components!.schemas!).sort()).toEqual([...new Set(['Error', ...names])].sort());
  });

  it('has the Pet, NewPet, Pets, PetStatus and Error schemas as SPEC describes them', () => {
    const schemas = document.components?.schemas as Record<string, Record<string, any>>;
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['Error', 'NewPet', 'Pet', 'PetStatus', 'Pets']));
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
