import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiObject } from './openapi-document.js';

// The document as the service served it before it was generated in one step (commit d5d30e2: trpc-to-openapi, then
// a rewrite), for these servers, written with two-space indentation.
const servers = { production: 'https://api.petstore.dev/v1', staging: 'https://staging.petstore.dev/v1' };
const served = readFileSync(new URL('./fixtures/served-document.json', import.meta.url), 'utf8');

type Json = Record<string, any>;

/** Rebuilds an object with its keys in the given order (the others after, as they were). */
const reorder = (object: Json, first: readonly string[]) =>
  Object.fromEntries([...first, ...Object.keys(object).filter((key) => !first.includes(key))].map((k) => [k, object[k]]));

/**
 * Every difference from the served document, on purpose and reviewed: applied to the old document, they must give the
 * new one byte for byte. Anything else that changes fails the test.
 */
const differences: { why: string; apply(document: Json): void }[] = [
  {
    why:
      'zod-openapi writes components in its own order: schemas before headers before securitySchemes, and the ' +
      'schemas as it registers them, the Error schema it is given, then the inputs (PetStatus, NewPet), then the ' +
      'outputs (Pets, Pet). Key order only.',
    apply(document) {
      document.components = reorder(document.components, ['schemas', 'headers', 'securitySchemes']);
      document.components.schemas = reorder(document.components.schemas, ['Error', 'PetStatus', 'NewPet', 'Pets', 'Pet']);
    },
  },
  {
    why:
      'The status query parameter\'s schema repeats the field\'s description beside its $ref (allowed in OpenAPI ' +
      '3.1), as zod-openapi renders a field with its own meta; the parameter keeps the same description.',
    apply(document) {
      const status = document.paths['/pets'].get.parameters.find((p: Json) => p.name === 'status');
      status.schema = { description: status.description, ...status.schema };
    },
  },
];

const pretty = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

describe('the OpenAPI document against the one served before', () => {
  it('is the served document byte for byte, apart from the listed differences', () => {
    const expected = JSON.parse(served) as Json;
    for (const difference of differences) difference.apply(expected);
    expect(pretty(openApiObject({ servers }))).toBe(pretty(expected));
  });

  it('compares against the fixture as it was served, unreformatted', () => {
    expect(pretty(JSON.parse(served))).toBe(served);
  });
});
