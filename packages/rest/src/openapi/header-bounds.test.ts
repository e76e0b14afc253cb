import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { openApiObject } from './openapi-document.js';

type Json = Record<string, any>;
const document = openApiObject({ servers: { production: 'https://api.petstore.dev/v1' } }) as Json;
const responses: [string, Json][] = Object.entries(document.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json).flatMap(([method, op]) =>
    Object.entries(op.responses as Json).map(([status, response]) => [`${method} ${path} ${status}`, response] as [string, Json]),
  ),
);

/** Every header schema of the document, written inline or as a component, by where it sits. */
const headerSchemas = (): [string, Json][] => [
  ...Object.entries(document.components.headers as Json).map(([name, header]) => [name, header.schema] as [string, Json]),
  ...responses.flatMap(([where, response]) =>
    Object.entries((response.headers ?? {}) as Json)
      .filter(([, header]) => !('$ref' in header))
      .map(([name, header]) => [`${where} ${name}`, header.schema] as [string, Json]),
  ),
];

describe('the headers of the OpenAPI document', () => {
  it('declares the CORS headers on every response of every operation', () => {
    expect(responses.length).toBeGreaterThanOrEqual(Object.keys(operations).length * 5);
    for (const [where, response] of responses) {
      expect(Object.keys(response.headers ?? {}), where).toEqual(
        expect.arrayContaining(['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers', 'Vary']),
      );
    }
  });

  it('bounds every header: integers with a format and a maximum, strings with a length or an enum', () => {
    for (const [where, schema] of headerSchemas()) {
      if (schema.type === 'integer') {
        expect(schema, where).toMatchObject({ format: expect.stringMatching(/^int(32|64)$/), maximum: expect.any(Number) });
      } else {
        expect(schema.type, where).toBe('string');
        expect(schema.maxLength !== undefined || schema.enum !== undefined, `${where} has no maxLength or enum`).toBe(true);
      }
    }
  });

  it('gives every header example a value its own schema accepts', () => {
    for (const [where, schema] of headerSchemas()) {
      for (const example of schema.examples ?? []) {
        expect(example.length, where).toBeLessThanOrEqual(schema.maxLength);
        if (schema.pattern) expect(example, where).toMatch(new RegExp(schema.pattern));
      }
    }
  });
});
