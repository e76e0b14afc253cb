import type { IncomingMessage } from 'node:http';
import { parse, type ParsedUrlQuery } from 'node:querystring';
import {
  bearerToken,
  jsonText,
  responseHeaders,
  toPetStoreError,
  type Admission,
  type OperationDefinition,
  type OperationId,
  type PetStore,
} from '@petstore/core';
import type { Endpoint } from './endpoint.js';
import { nextPageUrl } from './links.js';
import { readJsonBody } from './read-json-body.js';
import { sendJson } from './send.js';

/** What every operation endpoint shares: the store and how a request is addressed. */
export interface OperationSite {
  readonly store: PetStore;
  /** The absolute base address of a request, ending in the base path. */
  baseUrl(req: IncomingMessage): string;
  clientAddress(req: IncomingMessage): string | undefined;
}

const NO_LINKS: { baseUrl?: string; nextUrl?: string } = Object.freeze({});

function withAdmission(error: unknown, admission: Admission) {
  const failure = toPetStoreError(error);
  failure.meta = { ...admission.meta, ...failure.meta };
  return failure;
}

/**
 * Serves one operation: admission first (401 before any body is read), then its input from the query, the path or
 * a JSON body, then the store's call. `createdPath` is where a created resource lives (`/pets/` + its id).
 * @example createOperationEndpoint(site, 'createPet', operations.createPet, '/pets/')
 */
export function createOperationEndpoint(
  site: OperationSite,
  operationId: OperationId,
  operation: OperationDefinition,
  createdPath?: string,
): Endpoint {
  const { store } = site;
  const { inputFrom, path } = operation;
  return async (req, res, params, query) => {
    const admission = await store.admit(operationId, {
      apiKey: bearerToken(req.headers.authorization),
      clientAddress: site.clientAddress(req),
    });
    let input: unknown;
    let parsedQuery: ParsedUrlQuery | undefined;
    if (inputFrom === 'query') input = parsedQuery = parse(query);
    else if (inputFrom === 'path') input = params;
    else {
      try {
        input = await readJsonBody(req, res);
      } catch (error) {
        throw withAdmission(error, admission);
      }
    }
    const outcome = await store.call(operationId, input, {
      admission,
      encoding: 'http',
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    });
    const { meta } = outcome;
    let links = NO_LINKS;
    let location: string | undefined;
    if (meta.deprecation || meta.nextCursor !== undefined || createdPath !== undefined) {
      const baseUrl = site.baseUrl(req);
      links = { baseUrl };
      if (meta.nextCursor !== undefined) links.nextUrl = nextPageUrl(baseUrl, path, parsedQuery ?? {}, meta.nextCursor);
      if (createdPath !== undefined) location = `${baseUrl}${createdPath}${(outcome.data as { id: number }).id}`;
    }
    const headers = responseHeaders(meta, links);
    if (location !== undefined) headers['location'] = location;
    sendJson(res, outcome.status, jsonText(outcome.data), headers);
  };
}
