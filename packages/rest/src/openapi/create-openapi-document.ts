import type { CompleteDocumentOptions, OpenApiDocument } from './document-types.js';
import { openApiObject } from './openapi-document.js';

/**
 * The OpenAPI 3.1 document of the service, generated in one step from the core's operations by zod-openapi.
 * Builds a new document on every call; nothing is cached or mutated.
 * @example createOpenApiDocument({ servers: { production: 'https://api.petstore.dev/v1' } })
 */
export function createOpenApiDocument(options: CompleteDocumentOptions): OpenApiDocument {
  return openApiObject(options) as OpenApiDocument;
}
