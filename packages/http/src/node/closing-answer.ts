import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { stopBody } from './body-pieces.js';

/** How long a connection closed after an answer that left its body unread stays open for its client: 1 s. */
export const LINGER_MS = 1_000;
/** How a connection closes after an answer that leaves (part of) its request's body unread. */
export interface LingerOptions {
  /** How long, in ms, the connection stays open after the answer, reading nothing. Default {@link LINGER_MS}. */
  lingerMs?: number | undefined;
}

const CLOSING = Symbol('petstore.closing');
type Closing = Socket & { [CLOSING]?: true };

/**
 * Prepares the answer to a request whose body is left unread (refused from its headers, too large, too slow): the
 * body is read no further (see body-pieces.ts), the answer says `Connection: close`, and once it is written the
 * connection ends. Destroyed at once, a socket with unread bytes resets the connection, and an honest client still
 * writing its body may lose the answer with it; so the connection lingers: the server's side is closed (FIN after the
 * answer), nothing more is read (0 bytes, no event), and the socket is destroyed `lingerMs` later. Nothing is held
 * meanwhile: the request's slot goes with its answer. A client that keeps writing a large body may see a reset.
 * @example closeAfterAnswer(req, headers, {}); write(res, 401, headers, body)
 */
export function closeAfterAnswer(req: IncomingMessage, headers: Record<string, string>, options: LingerOptions = {}): void {
  const { lingerMs = LINGER_MS } = options;
  headers['connection'] = 'close';
  stopBody(req);
  const socket = req.socket as Closing | null;
  if (!socket || socket[CLOSING]) return;
  socket[CLOSING] = true;
  // Node ends a connection after an answer that says `Connection: close` with `destroySoon`: the answer flushed,
  // the socket is destroyed at once, which resets a client still writing. Linger instead.
  socket.destroySoon = function lingerAfterAnswer(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), lingerMs);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}
