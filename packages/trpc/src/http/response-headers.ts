import type { TRPCError } from '@trpc/server';
import { responseHeaders } from '@petstore/core';
import type { Context } from '../context.js';
import { petStoreErrorOf } from '../errors/error-mapping.js';

/**
 * The headers of a tRPC response, success or error: rate limits, Retry-After, Deprecation, Sunset and Link.
 * @example responseMeta: ({ errors }) => ({ headers: headersOf(ctx, errors) })
 */
export function headersOf(ctx: Context, errors: readonly TRPCError[]): Headers {
  const meta = Object.assign({}, ctx.response.meta, ...errors.map((error) => petStoreErrorOf(error).meta));
  const links = { baseUrl: ctx.links.baseUrl, ...(ctx.response.nextUrl ? { nextUrl: ctx.response.nextUrl } : {}) };
  return new Headers(responseHeaders(meta, links));
}
