import { appRouter } from '@petstore/trpc';
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { completeDocument } from './complete-document.js';
import type { CompleteDocumentOptions } from './document-types.js';

/**
 * The document with trpc-to-openapi's own types, for this package's code and tests.
 * @example openApiObject({ servers: { production: 'https://api.petstore.dev/v1' } }).paths?.['/pets']?.get
 */
export function openApiObject(options: CompleteDocumentOptions): OpenAPIObject {
  // The router's meta is the structural twin of trpc-to-openapi's, kept apart so `AppRouter` never names its types.
  const generated = generateOpenApiDocument(appRouter as unknown as OpenApiRouter, {
    title: 'Pet Store',
    version: '1.0.0',
    baseUrl: options.servers.production,
    securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
  });
  return completeDocument(generated, options);
}
