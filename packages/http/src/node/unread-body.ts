import type { IncomingMessage } from 'node:http';
import { BODY_LIMIT } from '../read-json-body.js';
import type { StandardRequest } from '../standard.js';

/** How much of an unwanted body is read and dropped before an answer that closes the connection. */
export const LINGER_BYTES = 1_048_576;

/** What the adapter knows of a node request's body: whether the pipeline read it, and when it had to arrive. */
export type BodyState = StandardRequest & { readonly bodyRead: boolean; readonly bodyDeadline: number };

/**
 * Sends an answer that leaves (part of) a request's body unread, without cutting its client off:
 * - no body left, its time is up, or more declared than is worth reading: answered at once (closing the connection
 *   if bytes may still come);
 * - a small declared body nobody read (a 401 before the body): answered at once, the body dropped behind it on a
 *   connection that stays open, and closed if the body has not ended by its deadline;
 * - anything else (too large, of unknown length, left part-way past the limit): the rest is read and dropped first,
 *   up to {@link LINGER_BYTES} and the deadline, then answered with `Connection: close`. Closing on a client that is
 *   still writing would reset its connection before it reads the answer (EPIPE instead of the 413).
 * @example settleBody(req, request, headers, () => write(res, 413, headers, body))
 */
export function settleBody(req: IncomingMessage, request: BodyState, headers: Record<string, string>, answer: () => void): void {
  const left = request.bodyDeadline - performance.now();
  const length = request.header('content-length');
  if (req.complete || req.readableEnded || !request.hasBody()) {
    answer();
  } else if (left <= 0 || Number(length) > LINGER_BYTES) {
    headers['connection'] = 'close';
    answer();
  } else if (!request.bodyRead && length !== undefined && Number(length) <= BODY_LIMIT) {
    req.resume();
    const timer = setTimeout(() => req.complete || req.socket.destroy(), left).unref();
    req.once('end', () => clearTimeout(timer));
    answer();
  } else {
    headers['connection'] = 'close';
    lingerThen(req, left, answer);
  }
}

/** Reads and drops the rest of a body, up to {@link LINGER_BYTES} and `ms`, then answers. */
function lingerThen(req: IncomingMessage, ms: number, answer: () => void) {
  let dropped = 0;
  const done = () => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', done);
    req.off('close', done);
    answer();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) done();
  };
  const timer = setTimeout(done, ms);
  req.on('data', onData);
  req.once('end', done);
  req.once('close', done);
  req.resume();
}
