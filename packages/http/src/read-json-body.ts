import { PetStoreError } from '@petstore/core';
import type { StandardRequest } from './standard.js';

/** The largest request body accepted: 64 KiB. */
export const BODY_LIMIT = 65_536;

/** How long a request's body may take to arrive once its headers have: 10 s, else 408 `request_timeout`. */
export const BODY_TIMEOUT_MS = 10_000;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
const JSON_MEDIA_TYPE = /^application\/json[ \t]*(?:;|$)/i;
const CHARSET = /;[ \t]*charset[ \t]*=[ \t]*"?([^";, \t]*)/i;

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

const tooLarge = () => new PetStoreError('payload_too_large');

/**
 * Reads a JSON request body of at most 64 KiB; `undefined` when there is none. Throws 413 `payload_too_large`,
 * 415 `unsupported_media_type` or 400 `malformed_json`.
 * @example const body = await readJsonBody(request)
 */
export async function readJsonBody(request: StandardRequest): Promise<unknown> {
  if (!request.hasBody()) return undefined;
  const declared = request.header('content-length');
  if (declared !== undefined && !(Number(declared) <= BODY_LIMIT)) throw tooLarge();
  if (!isJsonMediaType(request.header('content-type')) || !isIdentityEncoding(request.header('content-encoding'))) {
    throw new PetStoreError('unsupported_media_type');
  }
  const parsed = request.parsed;
  if (parsed) return parsed.body;
  const bytes = await request.readBody(BODY_LIMIT, tooLarge);
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
