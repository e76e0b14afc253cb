import { operations, type OperationDefinition } from '@petstore/core';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { z } from 'zod';
import { byStatus, errorCodesOf, errorContent, errorDescription, errorSchema } from './error-responses.js';
import type { Operation, Parameter, Schema } from './openapi-types.js';
import { commonHeaders, deprecationHeaders, headerComponents, headerRefs, nextLinkHeader } from './headers.js';
import type { CompleteDocumentOptions } from './document-types.js';

const TAG_DESCRIPTIONS: Record<string, string> = { animals: 'The animals of the catalogue.' };

const DESCRIPTION =
  'HTTP/JSON API of a pet store: list animals, optionally filtered by availability status, add an animal, and ' +
  'fetch one by its identifier. Every operation needs an API key sent as `Authorization: Bearer <API_KEY>`. ' +
  'Every response carries the rate-limit headers; a request over the limit gets 429 with `Retry-After`.';

const IDEMPOTENCY_KEY: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the request safe to retry: a repeat with the same key and body within 24 hours returns the first ' +
    'response with `Idempotent-Replayed: true`; the same key with another body gives 409 `idempotency_key_reused`.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const trimSlash = (url: string) => url.replace(/\/+$/, '');
const shapeOf = (schema: z.ZodType): Record<string, z.ZodType> => (schema instanceof z.ZodObject ? schema.shape : {});

/** The success response: the generated body under the operation's own status, with its headers. */
function successResponse(operation: Operation, op: OperationDefinition, baseUrl: string) {
  const generated = operation.responses?.['200'] as { content?: unknown } | undefined;
  return {
    description: op.successStatus === 201 ? 'Created.' : 'OK.',
    headers: {
      ...commonHeaders(),
      ...('cursor' in shapeOf(op.input) ? nextLinkHeader() : {}),
      ...(op.deprecation ? deprecationHeaders(op.deprecation, baseUrl) : {}),
      ...(op.writes ? headerRefs('Idempotent-Replayed') : {}),
    },
    content: generated?.content,
  };
}

/** One response per error status the operation can answer with; `internal_error` as `default`. */
function errorResponses(op: OperationDefinition, baseUrl: string) {
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of byStatus(errorCodesOf(op))) {
    responses[status === 500 ? 'default' : String(status)] = {
      description: errorDescription(codes),
      headers: {
        ...commonHeaders(),
        ...(status === 429 ? headerRefs('Retry-After') : {}),
        ...(status === 410 && op.deprecation ? deprecationHeaders(op.deprecation, baseUrl) : {}),
      },
      content: errorContent(codes),
    };
  }
  return responses;
}

/** The request body as a named component (`NewPet`) when its schema carries an id. */
function hoistRequestBody(doc: OpenAPIObject, operation: Operation, op: OperationDefinition) {
  const media = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[
    'application/json'
  ];
  const id = op.input.meta()?.id;
  if (!media?.schema || typeof id !== 'string') return;
  doc.components!.schemas![id] = media.schema as Schema;
  media.schema = { $ref: `#/components/schemas/${id}` };
}

function completeOperation(doc: OpenAPIObject, op: OperationDefinition, baseUrl: string) {
  const operation = doc.paths?.[op.path]?.[op.method.toLowerCase() as 'get' | 'post'];
  if (!operation || operation.operationId !== op.operationId) {
    throw new Error(`The generated document has no ${op.method} ${op.path} with operationId ${op.operationId}.`);
  }
  const shape = shapeOf(op.input);
  const parameters = (operation.parameters ?? []) as Parameter[];
  for (const parameter of parameters) {
    const description = shape[parameter.name]?.meta()?.description;
    if (parameter.description === undefined && typeof description === 'string') parameter.description = description;
  }
  operation.parameters = op.writes ? [...parameters, IDEMPOTENCY_KEY] : parameters;
  hoistRequestBody(doc, operation, op);
  operation.security = [{ bearerAuth: [] }];
  operation.responses = {
    [String(op.successStatus)]: successResponse(operation, op, baseUrl),
    ...errorResponses(op, baseUrl),
  };
  if (op.deprecation) operation.deprecated = true;
  if (op.stability) operation['x-stability'] = op.stability;
}

/**
 * Completes what trpc-to-openapi cannot express: info, servers, tags, security, the Error schema and every error
 * response, the success status (201), headers, the Idempotency-Key parameter and `x-stability`. Returns a new
 * document that shares nothing with its input or with other documents.
 * @example completeDocument(generateOpenApiDocument(appRouter, options), { servers: { production: url } })
 */
export function completeDocument(generated: OpenAPIObject, options: CompleteDocumentOptions): OpenAPIObject {
  const doc = structuredClone(generated);
  const definitions = options.operations ?? Object.values(operations);
  const production = trimSlash(options.servers.production);
  doc.info = { title: 'Pet Store', version: '1.0.0', description: DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } };
  doc.servers = [
    { url: production, description: 'Production' },
    ...(options.servers.staging ? [{ url: trimSlash(options.servers.staging), description: 'Staging' }] : []),
  ];
  const tags = [...new Set(definitions.flatMap((op) => op.tags))];
  doc.tags = tags.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] && { description: TAG_DESCRIPTIONS[name] }) }));
  doc.components = {
    ...doc.components,
    schemas: { ...doc.components?.schemas, Error: errorSchema },
    headers: { ...headerComponents },
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as a bearer token.' } },
  };
  for (const op of definitions) completeOperation(doc, op, production);
  return structuredClone(doc);
}
