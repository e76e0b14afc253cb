import type { OperationDefinition } from '@petstore/core';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { conditionParameters, idempotencyKeyParameter, requestParams } from './parameters.js';
import { requestBody, type BodySchemas } from './request-body.js';
import { responses } from './responses.js';

type Method = Lowercase<OperationDefinition['method']>;

/** One operation of the document, every field from its definition. */
function operationObject(op: OperationDefinition, baseUrl: string, bodies: BodySchemas): ZodOpenApiOperationObject {
  const body = requestBody(bodies.get(op));
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [...op.tags],
    security: [{ bearerAuth: [] }],
    ...(op.deprecation && { deprecated: true }),
    requestParams: requestParams(op),
    parameters: [...(op.writes ? [idempotencyKeyParameter] : []), ...conditionParameters(op)],
    ...(body && { requestBody: body }),
    responses: responses(op, baseUrl),
    ...(op.stability && { 'x-stability': op.stability }),
  };
}

/**
 * The `paths` of the document: each operation under its path and method, in the order given. `baseUrl` is the
 * production base, for the successor `Link` of a deprecation.
 * @example pathsOf(definitions, 'https://api.petstore.dev/v1', bodySchemas(definitions))['/pets']?.post?.operationId
 */
export function pathsOf(
  definitions: readonly OperationDefinition[],
  baseUrl: string,
  bodies: BodySchemas,
): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const op of definitions) {
    const item = (paths[op.path] ??= {});
    const method = op.method.toLowerCase() as Method;
    if (item[method]) throw new Error(`Two operations are defined for ${op.method} ${op.path}.`);
    item[method] = operationObject(op, baseUrl, bodies);
  }
  return paths;
}
