import type { OperationDefinition } from '@petstore/core';

/**
 * The meta of a procedure: how trpc-to-openapi exposes it under `/v1` (structurally the library's `OpenApiMeta`,
 * declared here so the router's type never names the library's types).
 */
export interface ProcedureMeta {
  openapi?: {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    path: `/${string}`;
    operationId: string;
    summary: string;
    description: string;
    tags: string[];
    deprecated: boolean;
    protect: boolean;
    errorResponses: never[];
  };
}

/**
 * The meta of an operation's procedure, from its definition. Error responses, headers and the success status are
 * not expressible here; `completeDocument` of `@petstore/rest` adds them.
 * @example procedure.meta(procedureMeta(operations.getPet))
 */
export function procedureMeta(op: OperationDefinition): ProcedureMeta {
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
