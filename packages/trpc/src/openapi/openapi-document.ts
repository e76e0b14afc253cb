import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from '../app-router.js';
import { completeDocument, type CompleteDocumentOptions } from './complete-document.js';

/**
 * The OpenAPI 3.1 document of the service, generated from `appRouter` and completed to SPEC. Builds a new
 * document on every call; nothing is cached or mutated.
 * @example createOpenApiDocument({ servers: { production: 'https://api.petstore.dev/v1' } })
 */
export function createOpenApiDocument(options: CompleteDocumentOptions): OpenAPIObject {
  const generated = generateOpenApiDocument(appRouter, {
    title: 'Pet Store',
    version: '1.0.0',
    baseUrl: options.servers.production,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
  });
  return completeDocument(generated, options);
}
