import { randomUUID } from 'node:crypto';

const SANE = /^[\x21-\x7E]{1,128}$/;

/**
 * The id of a request: the client's `X-Request-Id` when it is 1 to 128 visible ASCII characters, else a new UUID.
 * @example requestId(req.headers['x-request-id']) // '9b2c…'
 */
export function requestId(sent: string | string[] | undefined): string {
  return typeof sent === 'string' && SANE.test(sent) ? sent : randomUUID();
}
