import type { OperationDefinition } from '@petstore/core';

/** The base addresses listed in `servers`, each ending in `/v1`. */
export interface OpenApiServers {
  production: string;
  staging?: string | undefined;
  /** The verified custom domains' base addresses, each listed after production and staging. */
  custom?: readonly string[] | undefined;
}

/**
 * Whom the document names for questions about the API (OpenAPI `info.contact`): the operator's own address, never the
 * project's. Unset: the document names no contact.
 */
export interface OpenApiContact {
  name?: string | undefined;
  /** An absolute URL (`https://example.com/support`). */
  url?: string | undefined;
  email?: string | undefined;
}

/** What the document is built for: its servers, its contact, and the operations it describes. */
export interface CompleteDocumentOptions {
  servers: OpenApiServers;
  /** The operator's contact (`info.contact`); absent by default. */
  contact?: OpenApiContact | undefined;
  /** The operations the document describes, matched by path, method and operationId; the core's by default. */
  operations?: readonly OperationDefinition[];
}

/**
 * An OpenAPI 3.1 document as JSON data. Declared here rather than taken from zod-openapi, so the package's
 * public types name no other library's.
 */
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [field: string]: unknown };
  servers?: { url: string; description?: string }[];
  paths?: Record<string, unknown>;
  components?: Record<string, unknown>;
  [field: string]: unknown;
}
