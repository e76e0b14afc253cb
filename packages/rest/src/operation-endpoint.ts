import { parse, type ParsedUrlQuery } from 'node:querystring';
import type { OperationDefinition, OperationId, PetStore } from '@petstore/core';
import { jsonText, readJsonBody, responseHeaders, sendJson, type Links } from '@petstore/http';
import type { Endpoint } from './endpoint.js';
import { httpInput } from './http-input.js';
import { inputSources } from './input-sources.js';
import { nextPageUrl } from './links.js';

/**
 * Serves one operation through the core's one entry: the core admits the request (401, 429, 410) before the input
 * is read from the query, the path or a JSON body. `basePath` is where the API is mounted (`/v1`), `createdPath`
 * where a created resource lives (`/pets/` + its id).
 * @example createOperationEndpoint(store, 'createPet', operations.createPet, '/v1', '/pets/')
 */
export function createOperationEndpoint(
  store: PetStore,
  operationId: OperationId,
  operation: OperationDefinition,
  basePath: string,
  createdPath?: string,
): Endpoint {
  const { path, successStatus } = operation;
  const sources = inputSources(operation);
  const fromStrings = httpInput(operation.input);
  const withPath = (params: Record<string, string>, input: unknown) =>
    sources.path.length === 0
      ? input
      : input === undefined || (input !== null && typeof input === 'object' && !Array.isArray(input))
        ? { ...(input as object), ...fromStrings(params) }
        : input;
  return async (req, res, ctx, params, query) => {
    let parsedQuery: ParsedUrlQuery | undefined;
    const readInput = sources.body
      ? async () => withPath(params, await readJsonBody(req, res))
      : () => withPath(params, fromStrings((parsedQuery = parse(query))));
    const outcome = await store.call(operationId, readInput, ctx);
    const { meta } = outcome;
    ctx.keyId = meta.keyId;
    const links: Links = {};
    let location: string | undefined;
    if (meta.deprecation || meta.nextCursor !== undefined || createdPath !== undefined) {
      const baseUrl = ctx.linkBase(basePath);
      links.baseUrl = baseUrl;
      if (meta.nextCursor !== undefined) links.nextUrl = nextPageUrl(baseUrl, path, parsedQuery ?? {}, meta.nextCursor);
      if (createdPath !== undefined) location = `${baseUrl}${createdPath}${(outcome.data as { id: number }).id}`;
    }
    const headers = responseHeaders(meta, links);
    if (location !== undefined) headers['location'] = location;
    sendJson(res, successStatus, jsonText(outcome.data), headers);
  };
}
