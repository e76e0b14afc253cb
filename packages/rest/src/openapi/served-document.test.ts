import { readFileSync } from 'node:fs';
import { operations } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { openApiObject } from './openapi-document.js';

// The document as the service served it before it was generated in one step (commit d5d30e2: trpc-to-openapi, then
// a rewrite), for these servers, written with two-space indentation.
const servers = { production: 'https://api.petstore.dev/v1', staging: 'https://staging.petstore.dev/v1' };
const served = readFileSync(new URL('./fixtures/served-document.json', import.meta.url), 'utf8');

type Json = Record<string, any>;

/**
 * The operations the fixture was served with. Operations added since are not part of this comparison: the derived
 * tests of openapi-document.test.ts check each one against its definition, so a new one needs no difference here.
 */
const servedOperations = Object.values(operations).filter(
  (op) => (JSON.parse(served) as Json).paths[op.path]?.[op.method.toLowerCase()] !== undefined,
);

/** Rebuilds an object with its keys in the given order (the others after, as they were). */
const reorder = (object: Json, first: readonly string[]) =>
  Object.fromEntries([...first, ...Object.keys(object).filter((key) => !first.includes(key))].map((k) => [k, object[k]]));

/** Adds fields after the existing ones, as the generator writes them. */
const add = (object: Json, fields: Json) => Object.assign(object, fields);
const responsesOf = (document: Json) =>
  Object.values(document.paths as Json).flatMap((item) => Object.values(item as Json).flatMap((op) => Object.values(op.responses)));
const MAX_SAFE = 9007199254740991;
const LINK_BOUND = 65536;

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
  {
    why: 'OWASP API9 (inventory-access): both servers are declared public.',
    apply(document) {
      for (const server of document.servers) add(server, { 'x-internal': false });
    },
  },
  {
    why:
      'OWASP API4 (integer-format, integer-limit, string-limit): bounds on every header. Counts and the reset time ' +
      'go up to 2^53-1 (enterprise limits may), Retry-After up to the longest ban (7 days), X-Request-Id is 1 to ' +
      '128 visible ASCII characters, the Link URLs under 64 KiB, Deprecation and Sunset in their RFC forms.',
    apply(document) {
      const headers = document.components.headers;
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        add(headers[name].schema, { format: 'int64', maximum: MAX_SAFE });
      }
      add(headers['Retry-After'].schema, { format: 'int32', maximum: 604800 });
      add(headers['X-Request-Id'].schema, { minLength: 1, maxLength: 128, pattern: '^[!-~]+$' });
      const list = document.paths['/pets'].get;
      add(list.responses['200'].headers.Link.schema, { maxLength: LINK_BOUND, pattern: '^<[^>]+>; rel="next"$' });
      for (const status of ['200', '410']) {
        const deprecated = document.paths['/pets/{petId}'].get.responses[status].headers;
        add(deprecated.Deprecation.schema, { maxLength: 21, pattern: '^@-?[0-9]+$' });
        add(deprecated.Sunset.schema, {
          maxLength: 29,
          pattern:
            '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} ' +
            '[0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
        });
        add(deprecated.Link.schema, { maxLength: LINK_BOUND, pattern: '^<[^>]+>; rel="successor-version"$' });
      }
    },
  },
  {
    why:
      'OWASP API8 (define-cors-origin): the CORS headers DECISIONS "Browsers (CORS)" describes, declared once and ' +
      'referenced last on every response of every operation.',
    apply(document) {
      const tokens = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+( *, *[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$";
      add(document.components.headers, {
        'Access-Control-Allow-Origin': {
          description:
            'Present when the request comes from an allowed origin (`PETSTORE_CORS_ORIGINS`): `*` when every origin ' +
            "is allowed, else the request's own `Origin`.",
          schema: {
            type: 'string',
            maxLength: 2048,
            pattern: '^(\\*|null|[A-Za-z][A-Za-z0-9+.-]*://[^\\s/]+)$',
            examples: ['*', 'https://app.example.com'],
          },
        },
        'Access-Control-Expose-Headers': {
          description:
            'Present with `Access-Control-Allow-Origin`: the response headers a browser script may read, the ' +
            'rate-limit fields, `Retry-After`, `Link`, `Location`, `X-Request-Id`, `Idempotent-Replayed`, ' +
            '`Deprecation` and `Sunset`.',
          schema: { type: 'string', maxLength: 1024, pattern: tokens },
        },
        Vary: {
          description: "Names `Origin` when the answer depends on the request's origin (a list of allowed origins, not `*`).",
          schema: { type: 'string', maxLength: 1024, pattern: tokens, examples: ['Origin'] },
        },
      });
      for (const response of responsesOf(document)) {
        add((response as Json).headers, {
          'Access-Control-Allow-Origin': { $ref: '#/components/headers/Access-Control-Allow-Origin' },
          'Access-Control-Expose-Headers': { $ref: '#/components/headers/Access-Control-Expose-Headers' },
          Vary: { $ref: '#/components/headers/Vary' },
        });
      }
    },
  },
  {
    why:
      'OWASP API4 (array-limit, string-limit, integer-format): a page holds at most 100 animals, a stored name 1 to ' +
      '255 characters, limit is an int32; an Error names at most the fields of one 64 KiB body (messages and paths ' +
      'up to 65 KiB, at most 16384 details) and its status is an int32. Documentation only: validation is unchanged.',
    apply(document) {
      const schemas = document.components.schemas;
      add(schemas.Pets, { maxItems: 100 });
      schemas.Pet.properties.name = {
        type: 'string',
        description: "The animal's name.",
        minLength: 1,
        maxLength: 255,
        example: 'Rex',
      };
      add(document.paths['/pets'].get.parameters.find((p: Json) => p.name === 'limit').schema, { format: 'int32' });
      const error = schemas.Error.properties;
      add(error.message, { maxLength: 66560 });
      add(error.status, { format: 'int32' });
      add(error.details.items.properties.path, { maxLength: 66560 });
      add(error.details.items.properties.message, { maxLength: 66560 });
      add(error.details, { maxItems: 16384 });
    },
  },
  {
    why: 'DECISIONS "Custom domains while running": the Error codes gain 421 misdirected_request, after 415.',
    apply(document) {
      const codes: string[] = document.components.schemas.Error.properties.code.enum;
      codes.splice(codes.indexOf('unsupported_media_type') + 1, 0, 'misdirected_request');
    },
  },
  {
    why:
      'DECISIONS "Hostile clients and overload": a body must arrive within 10 s, else 408 request_timeout; the code ' +
      'joins the Error codes after idempotency_key_reused, and createPet (the operation with a body) answers it.',
    apply(document) {
      const codes: string[] = document.components.schemas.Error.properties.code.enum;
      codes.splice(codes.indexOf('idempotency_key_reused') + 1, 0, 'request_timeout');
      const create = document.paths['/pets'].post;
      const timeout = structuredClone(create.responses['413']);
      const message = 'The request body did not arrive within 10 seconds; the connection is closed.';
      timeout.description = `\`request_timeout\`: ${message}`;
      timeout.content['application/json'].examples = { request_timeout: { value: { code: 'request_timeout', message, status: 408 } } };
      const entries = Object.entries(create.responses);
      entries.splice(entries.findIndex(([status]) => status === '409'), 0, ['408', timeout]);
      create.responses = Object.fromEntries(entries);
    },
  },
  {
    why:
      'DECISIONS "Hostile clients and overload", Names: the creation body\'s name states its rule (no `pattern`: the ' +
      'rule needs Unicode property escapes, which a pattern has no flag for). Format characters are refused but for ' +
      'U+200C, U+200D and the tag characters, which written languages and emoji need.',
    apply(document) {
      document.components.schemas.NewPet.properties.name.description =
        "The animal's name: 1 to 255 characters, at least one of them visible; no control characters (Unicode Cc), line " +
        'or paragraph separators (Zl, Zp) or format characters (Cf: bidirectional controls, U+FEFF, U+200B), except ' +
        'U+200C ZERO WIDTH NON-JOINER, U+200D ZERO WIDTH JOINER and the tag characters U+E0020-U+E007F. Stored exactly as sent.';
    },
  },
  {
    why:
      'DECISIONS "The store changes": every answer carrying one Pet has an ETag (the header a component after ' +
      'Idempotent-Replayed, listed among the exposed headers), and so does a list page; listPets and getPet take ' +
      'If-None-Match and answer 304 after their 200; the Error codes gain 412 precondition_failed after gone. The new ' +
      'parts are taken as generated: openapi-document.test.ts checks them against the definitions. DECISIONS ' +
      '"Orders": the Error codes gain pet_not_available, order_not_open and pet_has_open_order (409) after ' +
      'idempotency_key_reused; the description no longer counts the operations.',
    apply(document) {
      const generated = openApiObject({ servers, operations: servedOperations }) as Json;
      document.info.description = generated.info.description;
      const codes: string[] = document.components.schemas.Error.properties.code.enum;
      codes.splice(codes.indexOf('gone') + 1, 0, 'precondition_failed');
      codes.splice(codes.indexOf('idempotency_key_reused') + 1, 0, 'pet_not_available', 'order_not_open', 'pet_has_open_order');
      const headers = Object.entries(document.components.headers);
      headers.splice(headers.findIndex(([name]) => name === 'Idempotent-Replayed') + 1, 0, ['ETag', generated.components.headers.ETag]);
      document.components.headers = Object.fromEntries(headers);
      document.components.headers['Access-Control-Expose-Headers'].description =
        generated.components.headers['Access-Control-Expose-Headers'].description;
      const withETag = (response: Json) => {
        const entries = Object.entries(response.headers);
        entries.splice(entries.findIndex(([name]) => name === 'X-Request-Id') + 1, 0, ['ETag', { $ref: '#/components/headers/ETag' }]);
        response.headers = Object.fromEntries(entries);
      };
      withETag(document.paths['/pets'].post.responses['201']);
      for (const op of [document.paths['/pets'].get, document.paths['/pets/{petId}'].get]) {
        const path = op === document.paths['/pets'].get ? '/pets' : '/pets/{petId}';
        withETag(op.responses['200']);
        op.parameters.push(generated.paths[path].get.parameters.find((p: Json) => p.name === 'If-None-Match'));
        const responses = Object.entries(op.responses);
        responses.splice(1, 0, ['304', generated.paths[path].get.responses['304']]);
        op.responses = Object.fromEntries(responses);
      }
    },
  },
];

const pretty = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

describe('the OpenAPI document against the one served before', () => {
  it('is the served document byte for byte, apart from the listed differences', () => {
    const expected = JSON.parse(served) as Json;
    for (const difference of differences) difference.apply(expected);
    expect(pretty(openApiObject({ servers, operations: servedOperations }))).toBe(pretty(expected));
  });

  it('finds every operation of the fixture in the registry', () => {
    const fixtureOperations = Object.values((JSON.parse(served) as Json).paths as Json).flatMap((item) =>
      Object.values(item as Json).map((op) => op.operationId),
    );
    expect(servedOperations.map((op) => op.operationId).sort()).toEqual(fixtureOperations.sort());
  });

  it('compares against the fixture as it was served, unreformatted', () => {
    expect(pretty(JSON.parse(served))).toBe(served);
  });
});
