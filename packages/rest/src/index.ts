export { createRestHandler, type RestHandlerOptions } from './rest-handler.js';
export { createRestCodec, type RestCodecOptions } from './rest-codec.js';
export { inputSources, type InputSources } from './input-sources.js';
export { createOpenApiDocument } from './openapi/create-openapi-document.js';
export type { CompleteDocumentOptions, OpenApiContact, OpenApiDocument, OpenApiServers } from './openapi/document-types.js';
