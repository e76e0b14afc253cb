import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from './request-context.js';

/**
 * A request as the pipeline reads it, whatever server received it: built lazily over `node:http` (no Fetch objects
 * on that path) or over a Fetch `Request`. Header names are lower case; a repeated header gives its first value.
 */
export interface StandardRequest {
  readonly method: string;
  /**
   * The request target as the client sent it, path and query (`/petstore/v1/pets?limit=5`): with the path a host
   * framework mounted the handler under, even where the framework strips it (Express's `app.use`).
   */
  readonly url: string;
  header(name: string): string | undefined;
  /** The connection it came on, as far as the server knows it. */
  readonly peer: PeerInfo;
  /** Whether a body follows the headers (a length above 0, or a chunked body). */
  hasBody(): boolean;
  /**
   * The body's bytes, at most `limit` of them; rejects with `tooLarge()` past it (the rest is discarded), and with
   * `bodyBrokenOff()` (400 `invalid_request`, the client's fault) when the body breaks off: the client goes away, its
   * connection is reset, its framing is refused. Called at most once.
   */
  readBody(limit: number, tooLarge: () => Error): Promise<Uint8Array>;
  /**
   * Told once, as soon as the pipeline knows the request is its own (before anything is awaited): whether the body may
   * be read at all. A request without a key-shaped token, a resource, a refusal from the path: never. A node server
   * then reads no more of that body (and closes the connection after the answer), and counts the pieces of one that
   * may be read (see node/body-pieces.ts).
   */
  bodyWanted?(wanted: boolean): void;
  /** A body a host's parser already read (`express.json()`), when the stream itself is spent. */
  readonly parsed?: { body: unknown } | undefined;
  /**
   * The runtime's own request (and, on node, response), for a codec that hands a request to another library's
   * handler as it is (tRPC's streamed batches).
   */
  readonly raw?: { node: { req: IncomingMessage; res: ServerResponse } } | { fetch: Request } | undefined;
  /** The request's context, once the pipeline has built it (kept on the request: no per-request map to look it up). */
  context?: RequestContext | undefined;
}

/** The connection a request came on. */
export interface PeerInfo {
  /** The socket's peer address; undefined when the runtime does not say (a Fetch handler given no address). */
  readonly address: string | undefined;
  /** Whether the connection to this server is TLS. */
  readonly encrypted: boolean;
  /** `host:port` this server was reached on, for links in development. */
  readonly local: string | undefined;
}

/** A whole response, written by the adapter of the server that received the request. */
export interface StandardResponse {
  status: number;
  /** Lower-case names; values as written. */
  headers: Record<string, string>;
  /** A stream only from a Fetch runtime's own handler (tRPC's streamed batches). */
  body: string | Uint8Array | ReadableStream<Uint8Array> | undefined;
  /**
   * Close the connection after the response: a request body was left unread, or too large to drain. Node only;
   * a Fetch runtime decides for itself.
   */
  closeConnection?: boolean;
}
