export { createRestHandler, type NodeHandler, type RestHandlerOptions } from './rest-handler.js';
export { createOpenApiDocument } from './openapi/create-openapi-document.js';
export type { CompleteDocumentOptions, OpenApiDocument, OpenApiServers } from './openapi/document-types.js';
