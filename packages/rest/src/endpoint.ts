import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '@petstore/http';

/**
 * What serves one route, given the request's context from the edge. A rejection is rendered as an Error response.
 * @example const ping: Endpoint = (req, res) => void res.end('pong')
 */
export type Endpoint = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: RequestContext,
  params: Record<string, string>,
  query: string,
) => void | Promise<void>;
