import type { Pipeline } from '../pipeline.js';
import { fromFetchRequest, type FetchBodyOptions, type FetchConnection } from './fetch-request.js';

const NOT_OURS = () => new Response(null, { status: 404 });

/**
 * The pipeline as a Fetch handler, `(request) => Promise<Response>`, for Next.js route handlers, Hono, Bun, Deno and
 * Workers-style runtimes. Bodies are read as streams, with no socket or node objects.
 * @example export const GET = toFetchHandler(pipeline)
 */
export function toFetchHandler(pipeline: Pipeline, options: FetchBodyOptions = {}) {
  return async (request: Request, connection?: FetchConnection): Promise<Response> => {
    const result = await pipeline.handle(fromFetchRequest(request, connection, options));
    if (result === undefined || result === 'answered') return NOT_OURS();
    const { status, headers, body } = result;
    return new Response(status === 204 || status === 304 || request.method === 'HEAD' ? null : (body as ConstructorParameters<typeof Response>[0]), {
      status,
      headers,
    });
  };
}
