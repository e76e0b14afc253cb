import type { OperationDefinition } from '@petstore/core';

/** The base addresses listed in `servers`, each ending in `/v1`. */
export interface OpenApiServers {
  production: string;
  staging?: string | undefined;
}

/** What the document is built for: its servers, and the operations it describes. */
export interface CompleteDocumentOptions {
  servers: OpenApiServers;
  /** The operations the document describes, matched by path, method and operationId; the core's by default. */
  operations?: readonly OperationDefinition[];
}

/**
 * An OpenAPI 3.1 document as JSON data. Declared here rather than taken from trpc-to-openapi, so the package's
 * types never pull in that library's (which need koa, next and zod internals to compile).
 */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [field: string]: unknown };
  servers?: { url: string; description?: string }[];
  paths?: Record<string, unknown>;
  components?: Record<string, unknown>;
  [field: string]: unknown;
}
