import { PetStoreError } from '@petstore/core';
import { BODY_TIMEOUT_MS } from '../read-json-body.js';
import type { PeerInfo, StandardRequest } from '../standard.js';

/** What a Fetch runtime may know of the connection beside the `Request` (e.g. Hono's `getConnInfo`). */
export interface FetchConnection {
  /** The client's address, when the runtime gives it; undefined requests share one address for limits. */
  address?: string | undefined;
}

/** Reads a body stream, refusing past `limit`, and with 408 `request_timeout` when it is not whole by `deadline`. */
async function collect(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error, deadline: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PetStoreError('request_timeout')), Math.max(0, deadline - performance.now()));
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) break;
      received += value.byteLength;
      if (received > limit) throw tooLarge();
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
export function fromFetchRequest(request: Request, connection: FetchConnection = {}): StandardRequest {
  const target = new URL(request.url);
  const peer: PeerInfo = { address: connection.address, encrypted: target.protocol === 'https:', local: target.host };
  const bodyDeadline = performance.now() + BODY_TIMEOUT_MS;
  return {
    method: request.method,
    url: target.pathname + target.search,
    // A Fetch runtime may keep the host in the URL only.
    header: (name) => request.headers.get(name) ?? (name === 'host' ? target.host : undefined),
    peer,
    hasBody: () => request.body !== null,
    raw: { fetch: request },
    readBody: (limit, tooLarge) =>
      request.body ? collect(request.body, limit, tooLarge, bodyDeadline) : Promise.resolve(new Uint8Array()),
  };
}
