import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { bearerToken } from '../bearer-token.js';
import type { Pipeline } from '../pipeline.js';
import type { RequestContext } from '../request-context.js';
import type { StandardRequest, StandardResponse } from '../standard.js';
import { onStoppedConnection } from './body-pieces.js';
import { closeAfterAnswer, type LingerOptions } from './closing-answer.js';
import { fromNodeRequest, type NodeBodyOptions } from './node-request.js';
import type { OverloadGuard } from './overload.js';
import { createTurnEndWriter } from './turn-end-writer.js';
import { closeIfUnread, WRITE_TIMEOUT_MS } from './unread-response.js';

/** How the node adapter reads requests and writes responses; every duration has its production default. */
export interface NodeAdapterOptions extends NodeBodyOptions, LingerOptions {
  /** How long a written response may wait for its client to take it before the connection closes, in ms. Default 10 s. */
  writeTimeoutMs?: number | undefined;
  /**
   * Write the responses finished in one event-loop turn together when the turn ends (see turn-end-writer.ts): fewer
   * wake-ups of busy clients, measured on the service's own server. Off by default: a host sees each response
   * written when the handler is done with it.
   */
  writeAtTurnEnd?: boolean | undefined;
  /**
   * Load shedding in front of the pipeline (`createOverloadGuard`): a request it refuses gets 503 at once; `live`
   * false (a wedged process) makes `/livez` answer 503.
   */
  overload?: (Pick<OverloadGuard, 'admit'> & Partial<Pick<OverloadGuard, 'live'>>) | undefined;
}

/** A `node:http` request handler; `next`, when given (Express), receives the requests the handler does not own. */
export type NodeHandler = ((req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void) & {
  /** The context of a request this handler served (request id, route, key id), for logs wrapped around it. */
  contextOf(req: IncomingMessage): RequestContext | undefined;
};

type Write = (res: ServerResponse, status: number, headers: Record<string, string>, body: string | Uint8Array | undefined) => void;

/** Where a node request keeps its standard request, for `contextOf` (a property, not a per-request map entry). */
const STANDARD = Symbol('petstore.standardRequest');
type WithRequest = IncomingMessage & { [STANDARD]?: StandardRequest };


/**
 * The pipeline as a `node:http` handler, for `http.createServer`, Express (`app.use`) and Fastify (raw request and
 * reply). No Fetch objects are made on this path.
 * @example http.createServer(toNodeHandler(pipeline))
 */
export function toNodeHandler(pipeline: Pipeline, options: NodeAdapterOptions = {}): NodeHandler {
  const { writeTimeoutMs = WRITE_TIMEOUT_MS } = options;
  const unread = (res: ServerResponse) => closeIfUnread(res, writeTimeoutMs);
  const writeNow: Write = (res, status, headers, body) => {
    res.writeHead(status, headers);
    res.end(body);
    unread(res);
  };
  const write: Write = options.writeAtTurnEnd ? createTurnEndWriter(unread) : writeNow;
  const body = { bodyTimeoutMs: options.bodyTimeoutMs, maxBodyPieces: options.maxBodyPieces };
  const linger = { lingerMs: options.lingerMs };
  type NodeRequest = ReturnType<typeof fromNodeRequest>;

  function send(req: IncomingMessage, res: ServerResponse, request: NodeRequest, response: StandardResponse) {
    if (request.answered || res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    request.answered = true;
    const { headers, body } = response;
    if (response.closeConnection) headers['connection'] = 'close';
    if (body instanceof ReadableStream) {
      res.writeHead(response.status, headers);
      Readable.fromWeb(body as import('node:stream/web').ReadableStream).pipe(res);
      return;
    }
    if (response.status !== 204 && response.status !== 304) {
      headers['content-length'] = String(body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    }
    // An answer that leaves part of the body unread is written at once (its slot goes with it), and the connection
    // closes after it: the body is read no further.
    if (!(req.complete || !request.hasBody()) || onStoppedConnection(req)) closeAfterAnswer(req, headers, linger);
    write(res, response.status, headers, body);
  }

  const { overload } = options;
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => {
    // A request parsed after one whose body was stopped on its connection: that connection closes after the answer
    // already decided, and this one is not served (nor does it take a slot).
    if (onStoppedConnection(req)) return;
    // Shedding knows who pays: the rank the bearer token has earned, from the headers alone.
    if (overload && !overload.admit(req, res, pipeline.rankOf(bearerToken(req.headers.authorization)))) return;
    const request = fromNodeRequest(req, res, body);
    (req as WithRequest)[STANDARD] = request;
    pipeline.handle(request, { fallThrough: next !== undefined }).then(
      (result) => {
        if (result === undefined) return next ? next() : undefined;
        if (result !== 'answered') send(req, res, request, result);
        else unread(res);
      },
      (error: unknown) => res.destroy(error as Error),
    );
  };
  return Object.assign(handler, {
    contextOf: (req: IncomingMessage) => (req as WithRequest)[STANDARD]?.context,
  });
}
