import type { RequestContext, StandardRequest, StandardResponse } from '@petstore/http';

/** A resource route of REST: the document, the docs page and its assets. */
export type RestResource = (request: StandardRequest, ctx: RequestContext) => StandardResponse | Promise<StandardResponse>;
