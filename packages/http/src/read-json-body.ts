import type { IncomingMessage, ServerResponse } from 'node:http';
import { PetStoreError } from '@petstore/core';

/** The largest request body accepted: 64 KiB. */
export const BODY_LIMIT = 65_536;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const JSON_MEDIA_TYPE = /^application\/json[ \t]*(?:;|$)/i;
const CHARSET = /;[ \t]*charset[ \t]*=[ \t]*"?([^";, \t]*)/i;

function declaredLength(req: IncomingMessage): number | undefined {
  const header = req.headers['content-length'];
  return header === undefined ? undefined : Number(header);
}

function hasBody(req: IncomingMessage): boolean {
  const length = declaredLength(req);
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : length > 0;
}

/**
 * Whether a `Content-Type` is JSON the service reads: `application/json`, any case, parameters allowed, UTF-8 only.
 * @example isJsonMediaType("application/json; charset=utf-8") // true
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) return false;
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

function isIdentityEncoding(encoding: string | undefined): boolean {
  return encoding === undefined || encoding.trim().toLowerCase() === 'identity';
}

/**
 * Discards a request body that will not be read. A body that may be large (chunked or over the limit) also closes
 * the connection after the response, so nobody can stream into a discarded request.
 * @example discardBody(req, res); sendError(res, error)
 */
export function discardBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || req.readableEnded || !hasBody(req)) return;
  const length = declaredLength(req);
  if (length === undefined || !(length <= BODY_LIMIT)) res.setHeader('connection', 'close');
  req.resume();
}

function tooLarge(req: IncomingMessage, res: ServerResponse): PetStoreError {
  res.setHeader('connection', 'close');
  req.resume();
  return new PetStoreError('payload_too_large');
}

/**
 * Reads a JSON request body of at most 64 KiB; `undefined` when there is none. Throws 413 `payload_too_large`,
 * 415 `unsupported_media_type` or 400 `malformed_json`; on any of them the rest of the body is discarded.
 * @example const body = await readJsonBody(req, res)
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  const length = declaredLength(req);
  if (length !== undefined && !(length <= BODY_LIMIT)) throw tooLarge(req, res);
  if (!isJsonMediaType(req.headers['content-type']) || !isIdentityEncoding(req.headers['content-encoding'])) {
    discardBody(req, res);
    throw new PetStoreError('unsupported_media_type');
  }
  if (req.readableEnded) return alreadyParsed(req);
  const bytes = await collect(req, res);
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new PetStoreError('malformed_json', 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new PetStoreError('malformed_json');
  }
}

/** A body parser in front of the handler (e.g. `express.json()`) consumed the stream; its result is all that is left. */
function alreadyParsed(req: IncomingMessage): unknown {
  const parsed = (req as { body?: unknown }).body;
  if (parsed === undefined) throw new Error('The request body was consumed before the REST handler could read it.');
  return parsed;
}

function collect(req: IncomingMessage, res: ServerResponse): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > BODY_LIMIT) {
        cleanup();
        chunks.length = 0;
        reject(tooLarge(req, res));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onError = (error?: unknown) => {
      cleanup();
      reject(error instanceof Error ? error : new Error('The request was aborted.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onError);
  });
}
