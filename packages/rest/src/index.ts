export { createRestHandler, type NodeHandler, type RestHandlerOptions } from './rest-handler.js';
export { createOpenApiDocument } from './openapi/openapi-document.js';
export { completeDocument, type CompleteDocumentOptions, type OpenApiServers } from './openapi/complete-document.js';
