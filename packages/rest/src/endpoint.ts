import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What serves one route. A rejection is rendered as an Error response by the handler.
 * @example const ping: Endpoint = (req, res) => void res.end('pong')
 */
export type Endpoint = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  query: string,
) => void | Promise<void>;
