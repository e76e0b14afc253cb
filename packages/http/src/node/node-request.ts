import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { PetStoreError } from '@petstore/core';
import { bodyBrokenOff } from '../broken-body.js';
import { BODY_TIMEOUT_MS } from '../read-json-body.js';
import type { RequestContext } from '../request-context.js';
import type { PeerInfo, StandardRequest } from '../standard.js';
import { BODY_STOPPED, MAX_BODY_PIECES, bodyStopped, declaresBody, stopBody } from './body-pieces.js';

/** How a node request's body is read. */
export interface NodeBodyOptions {
  /** How long the body may take to arrive once the headers have, in ms; else 408. Default {@link BODY_TIMEOUT_MS}. */
  bodyTimeoutMs?: number | undefined;
  /** How many pieces (chunks, socket reads) the body may arrive in; past that, 413. Default {@link MAX_BODY_PIECES}. */
  maxBodyPieces?: number | undefined;
}

/** The refusal of a body that came in more pieces than it may: it costs by its pieces, so it counts as too large. */
const inTooManyPieces = (maxPieces: number) =>
  new PetStoreError('payload_too_large', `The request body came in more than ${maxPieces} pieces; send it in larger ones.`);

type HostRequest = IncomingMessage & { originalUrl?: unknown; body?: unknown };

/**
 * Reads the body of a node request: its chunks until the end, refusing past `limit`, and with 408
 * `request_timeout` when it has not all arrived by `deadline` (a `performance.now()` time).
 */
function collect(req: IncomingMessage, limit: number, tooLarge: () => Error, deadline: number, maxPieces: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    if (bodyStopped(req)) return reject(inTooManyPieces(maxPieces));
    // Its connection already gone (reset while the key was checked): no data, end or close is coming.
    if (req.destroyed) return reject(bodyBrokenOff(req.errored ?? undefined));
    const chunks: Buffer[] = [];
    let received = 0;
    let pieces = 0;
    // The deadline's timer is set when the turn ends, and only for a body still arriving then: one that came with
    // its headers has ended by that time (Node parses it after the handler has run), and costs no timer.
    let timer: NodeJS.Timeout | undefined;
    const arming = setImmediate(() => {
      timer = setTimeout(() => {
        cleanup();
        chunks.length = 0;
        reject(new PetStoreError('request_timeout'));
      }, Math.max(0, deadline - performance.now()));
    });
    const cleanup = () => {
      clearImmediate(arming);
      if (timer !== undefined) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
      req.off(BODY_STOPPED, onStopped);
    };
    const refuse = (error: Error) => {
      cleanup();
      chunks.length = 0;
      stopBody(req);
      reject(error);
    };
    const onStopped = () => refuse(inTooManyPieces(maxPieces));
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return refuse(tooLarge());
      if (++pieces > maxPieces) return refuse(inTooManyPieces(maxPieces));
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    // Whatever the request's stream reports (`ECONNRESET` 'aborted', a parser's error, a close before the end) is
    // the client's: classified here, where it came from, not later by its code.
    const onError = (error?: unknown) => {
      cleanup();
      reject(bodyBrokenOff(error));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onError);
    req.on(BODY_STOPPED, onStopped);
  });
}

/** A {@link StandardRequest} over a node request; every field is read only when asked for. */
class NodeRequest implements StandardRequest {
  readonly method: string;
  readonly url: string;
  #peer: PeerInfo | undefined;
  /** Whether the pipeline started reading the body (so the adapter need not drain it). */
  bodyRead = false;
  /** Whether a response was written for it (a second one destroys the socket instead). */
  answered = false;
  context: RequestContext | undefined = undefined;
  /** When the body must have arrived (`performance.now()` time): `bodyTimeoutMs` after the headers. */
  readonly bodyDeadline: number;
  readonly #maxPieces: number;

  constructor(
    readonly req: HostRequest,
    readonly raw: { node: { req: IncomingMessage; res: ServerResponse } } | undefined,
    options: NodeBodyOptions,
  ) {
    this.bodyDeadline = performance.now() + (options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
    this.#maxPieces = options.maxBodyPieces ?? MAX_BODY_PIECES;
    this.method = req.method ?? 'GET';
    // Express strips the mount path from `url` and keeps the whole target in its documented `originalUrl`.
    this.url = typeof req.originalUrl === 'string' ? req.originalUrl : (req.url ?? '/');
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  }

  get peer(): PeerInfo {
    if (this.#peer) return this.#peer;
    const socket = this.req.socket as Partial<TLSSocket> | null;
    const localAddress = socket?.localAddress;
    const local =
      localAddress === undefined ? undefined : `${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${socket?.localPort ?? 80}`;
    return (this.#peer = { address: socket?.remoteAddress, encrypted: Boolean(socket?.encrypted), local });
  }

  hasBody(): boolean {
    return declaresBody(this.req);
  }

  get parsed(): { body: unknown } | undefined {
    return this.req.readableEnded && this.req.body !== undefined ? { body: this.req.body } : undefined;
  }

  readBody(limit: number, tooLarge: () => Error): Promise<Uint8Array> {
    this.bodyRead = true;
    if (this.req.readableEnded) {
      // A host's body parser read it first (Fastify's, when a route hands `request.raw` over): a mistake in the glue,
      // said on stderr as well as in the 500, since a host without a logger would otherwise see nothing.
      const message =
        'The request body was consumed before the Pet Store handler could read it: a body parser of the host read it ' +
        "first. In Fastify, register the store's plugin (createFastifyPlugin of @petstore/embed) instead of a route " +
        'that hands request.raw over.';
      process.emitWarning(message, { code: 'PETSTORE_BODY_CONSUMED' });
      return Promise.reject(new Error(message));
    }
    return collect(this.req, limit, tooLarge, this.bodyDeadline, this.#maxPieces);
  }
  bodyWanted(wanted: boolean): void {
    // A body that came whole with its headers costs nothing more (Node drops an unread one after the answer); and
    // only a request this package answers on its own is stopped (not one a host's mount hands it). A wanted body's
    // pieces are counted as it is read.
    if (this.raw === undefined || this.req.complete || !this.hasBody()) return;
    if (!wanted) stopBody(this.req);
  }
}

/**
 * The standard request of a `node:http` request (Express and Fastify's raw request included), read lazily.
 * @example const request = fromNodeRequest(req); request.header('authorization')
 */
export function fromNodeRequest(
  req: IncomingMessage,
  res?: ServerResponse,
  options: NodeBodyOptions = {},
): StandardRequest & { readonly bodyRead: boolean; answered: boolean; readonly bodyDeadline: number } {
  return new NodeRequest(req, res ? { node: { req, res } } : undefined, options);
}
