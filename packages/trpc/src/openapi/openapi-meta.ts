import type { OperationDefinition } from '@petstore/core';
import type { OpenApiMeta } from 'trpc-to-openapi';

/**
 * The trpc-to-openapi meta of a procedure, from its operation definition. Error responses, headers and the
 * success status are not expressible here; `completeDocument` adds them.
 * @example procedure.meta(openApiMeta(operations.getPet))
 */
export function openApiMeta(op: OperationDefinition): OpenApiMeta {
  return {
    openapi: {
      method: op.method,
      path: op.path as `/${string}`,
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: [...op.tags],
      deprecated: op.deprecation !== undefined,
      protect: true,
      errorResponses: [],
    },
  };
}
