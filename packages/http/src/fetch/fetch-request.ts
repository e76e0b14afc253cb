import { PetStoreError } from '@petstore/core';
import { bodyBrokenOff } from '../broken-body.js';
import { BODY_TIMEOUT_MS } from '../read-json-body.js';
import { MAX_BODY_PIECES } from '../node/body-pieces.js';
import type { PeerInfo, StandardRequest } from '../standard.js';

/** How a Fetch request's body is read; the durations have their production defaults. */
export interface FetchBodyOptions {
  /** How long the body may take to arrive, in ms from when the request was handed over; else 408. Default 10 s. */
  bodyTimeoutMs?: number | undefined;
  /** How many pieces (stream chunks) the body may arrive in; past that, 413. Default 256. */
  maxBodyPieces?: number | undefined;
}

/** What a Fetch runtime may know of the connection beside the `Request` (e.g. Hono's `getConnInfo`). */
export interface FetchConnection {
  /** The client's address, when the runtime gives it; undefined requests share one address for limits. */
  address?: string | undefined;
}

/**
 * Reads a body stream, refusing past `limit` bytes or `maxPieces` chunks (a body costs by its pieces: one in tiny
 * chunks is refused as too large), and with 408 `request_timeout` when it is not whole by `deadline`.
 */
async function collect(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error, deadline: number, maxPieces: number): Promise<Uint8Array> {
  const reader = body.getReader();
  // A read that fails is the client's stream breaking off (the runtime's abort, a reset): never the database's.
  const read = () => reader.read().catch((error: unknown) => Promise.reject(bodyBrokenOff(error)));
  const chunks: Uint8Array[] = [];
  let received = 0;
  let pieces = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PetStoreError('request_timeout')), Math.max(0, deadline - performance.now()));
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([read(), late]);
      if (done) break;
      received += value.byteLength;
      if (received > limit) throw tooLarge();
      if (++pieces > maxPieces) {
        throw new PetStoreError('payload_too_large', `The request body came in more than ${maxPieces} pieces; send it in larger ones.`);
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The standard request of a Fetch `Request` (Next.js route handlers, Hono, Bun, Deno, Workers): its body is read as
 * a stream, with or without `Content-Length`.
 * @example const request = fromFetchRequest(new Request('http://localhost/v1/pets'), { address: '127.0.0.1' })
 */
export function fromFetchRequest(request: Request, connection: FetchConnection = {}, options: FetchBodyOptions = {}): StandardRequest {
  const target = new URL(request.url);
  const peer: PeerInfo = { address: connection.address, encrypted: target.protocol === 'https:', local: target.host };
  const bodyDeadline = performance.now() + (options.bodyTimeoutMs ?? BODY_TIMEOUT_MS);
  const maxPieces = options.maxBodyPieces ?? MAX_BODY_PIECES;
  return {
    method: request.method,
    url: target.pathname + target.search,
    // A Fetch runtime may keep the host in the URL only.
    header: (name) => request.headers.get(name) ?? (name === 'host' ? target.host : undefined),
    peer,
    hasBody: () => request.body !== null,
    raw: { fetch: request },
    readBody: (limit, tooLarge) =>
      request.body ? collect(request.body, limit, tooLarge, bodyDeadline, maxPieces) : Promise.resolve(new Uint8Array()),
  };
}
