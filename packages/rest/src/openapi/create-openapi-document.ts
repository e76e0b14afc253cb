import type { CompleteDocumentOptions, OpenApiDocument } from './document-types.js';
import { openApiObject } from './openapi-document.js';

/**
 * The OpenAPI 3.1 document of the service, generated from `appRouter` by trpc-to-openapi and completed to SPEC.
 * Builds a new document on every call; nothing is cached or mutated.
 * @example createOpenApiDocument({ servers: { production: 'https://api.petstore.dev/v1' } })
 */
export function createOpenApiDocument(options: CompleteDocumentOptions): OpenApiDocument {
  return openApiObject(options) as OpenApiDocument;
}
