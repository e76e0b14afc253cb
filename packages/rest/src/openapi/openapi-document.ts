import { appRouter } from '@petstore/trpc';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { completeDocument, type CompleteDocumentOptions } from './complete-document.js';

/**
 * The OpenAPI 3.1 document of the service, generated from `appRouter` by trpc-to-openapi and completed to SPEC.
 * Builds a new document on every call; nothing is cached or mutated.
 * @example createOpenApiDocument({ servers: { production: 'https://api.petstore.dev/v1' } })
 */
export function createOpenApiDocument(options: CompleteDocumentOptions): OpenAPIObject {
  // The router's meta is the structural twin of trpc-to-openapi's, kept apart so `AppRouter` never names its types.
  const generated = generateOpenApiDocument(appRouter as unknown as OpenApiRouter, {
    title: 'Pet Store',
    version: '1.0.0',
    baseUrl: options.servers.production,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
  });
  return completeDocument(generated, options);
}
