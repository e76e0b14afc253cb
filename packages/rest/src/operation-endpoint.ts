import { parse, type ParsedUrlQuery } from 'node:querystring';
import type { OperationDefinition, OperationId, PetStore } from '@petstore/core';
import { jsonText, readJsonBody, responseHeaders, sendJson, type Links } from '@petstore/http';
import type { Endpoint } from './endpoint.js';
import { httpInput } from './http-input.js';
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
  const { inputFrom, path, successStatus } = operation;
  const fromStrings = httpInput(operation.input);
  return async (req, res, ctx, params, query) => {
    let parsedQuery: ParsedUrlQuery | undefined;
    const readInput =
      inputFrom === 'query'
        ? () => fromStrings((parsedQuery = parse(query)))
        : inputFrom === 'path'
          ? () => fromStrings(params)
          : () => readJsonBody(req, res);
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
