export { createRestHandler, type NodeHandler, type RestHandlerOptions } from './rest-handler.js';
