import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How many pieces a request body may arrive in (chunks of a chunked body, or reads of the socket): 256. */
export const MAX_BODY_PIECES = 256;

/**
 * Why a body costs by its pieces: Node's HTTP parser calls JavaScript once per piece of a body (each chunk of a
 * chunked body, each read of the socket), with a copy of it, whether anyone reads the body or not. A body sent as
 * 1-byte chunks costs about a microsecond a byte, and a socket read holds up to 64 KiB of them, all parsed before
 * the request's key is known. So each connection's parser counts the pieces of the request it is on, and a request
 * whose body needs no more reading (refused, answered, or in more than its limit of pieces) has the parser stop
 * calling JavaScript for bodies on that connection: the rest of what has arrived is skipped in C++, nothing more is
 * read, and the connection closes after the answer (see closing-answer.ts).
 *
 * The parser is Node's own (`socket.parser`, with the index of its body callback on its class): where a Node version
 * does not have them, pieces are counted as they are read instead, and stopping pauses the socket.
 */
type Parser = { [index: number]: unknown; incoming: IncomingMessage | null; constructor: { kOnBody?: unknown } };

const PIECES = Symbol('petstore.bodyPieces');
/** The event a request emits when its body is stopped, for a reader waiting on it. */
export const BODY_STOPPED = Symbol('petstore.bodyStopped');
const WATCHED = Symbol('petstore.bodyWatched');

type Counted = IncomingMessage & { [PIECES]?: number };
const STOPPED = Symbol('petstore.connectionStopped');
type Watched = Socket & { parser?: Parser | null; [STOPPED]?: true; [WATCHED]?: { parser: Parser; kOnBody: number; onBody: (this: Parser, chunk: Buffer) => unknown } };

function parserOf(socket: Watched): { parser: Parser; kOnBody: number } | undefined {
  const parser = socket.parser;
  const kOnBody = parser?.constructor?.kOnBody;
  if (!parser || typeof kOnBody !== 'number' || typeof parser[kOnBody] !== 'function') return undefined;
  return { parser, kOnBody };
}

/**
 * Counts the pieces of each request body on `req`'s connection (once per connection), and stops the body of a
 * request past `maxPieces` where it arrives. Returns false when this Node's parser cannot be watched (pieces are
 * then counted by the reader only).
 * @example watchBodyPieces(req, 256); …; piecesOf(req) // 3
 */
export function watchBodyPieces(req: IncomingMessage, maxPieces: number): boolean {
  const socket = req.socket as Watched | null;
  if (!socket) return false;
  if (socket[WATCHED]) return true;
  const found = parserOf(socket);
  if (!found) return false;
  const { parser, kOnBody } = found;
  const onBody = parser[kOnBody] as (this: Parser, chunk: Buffer) => unknown;
  socket[WATCHED] = { parser, kOnBody, onBody };
  parser[kOnBody] = function countPiece(this: Parser, chunk: Buffer) {
    const incoming = this.incoming as Counted | null;
    if (incoming) {
      const pieces = (incoming[PIECES] ?? 0) + 1;
      incoming[PIECES] = pieces;
      if (pieces > maxPieces) {
        stopBody(incoming);
        return undefined;
      }
    }
    return onBody.call(this, chunk);
  };
  // The parser goes back to Node's pool when the connection closes: as Node made it.
  socket.once('close', () => {
    if (parser[kOnBody] !== onBody) parser[kOnBody] = onBody;
  });
  return true;
}

/** The pieces `req`'s body has arrived in so far (by the parser's count; 0 when it is not watched). */
export function piecesOf(req: IncomingMessage): number {
  return (req as Counted)[PIECES] ?? 0;
}

/** Whether the body of `req` was stopped: past its pieces, or left unread by an answer that closes the connection. */
export function bodyStopped(req: IncomingMessage): boolean {
  return ((req as Counted)[PIECES] ?? 0) === Number.POSITIVE_INFINITY;
}

/**
 * Reads no more of `req`'s body, nor anything after it on its connection (which must close after the answer):
 * what has already arrived is skipped by the parser without calling JavaScript, and the socket is paused.
 * @example stopBody(req); res.setHeader('connection', 'close')
 */
export function stopBody(req: IncomingMessage): void {
  if ((req as Counted)[PIECES] === Number.POSITIVE_INFINITY) return;
  (req as Counted)[PIECES] = Number.POSITIVE_INFINITY;
  req.emit(BODY_STOPPED);
  const socket = req.socket as Watched | null;
  if (!socket) return;
  socket[STOPPED] = true;
  const watched = socket[WATCHED];
  // A parser's body callback that is not a function is skipped: nothing copied, nothing called.
  if (watched && socket.parser === watched.parser) watched.parser[watched.kOnBody] = undefined;
  else {
    const found = parserOf(socket);
    if (found) {
      const { parser, kOnBody } = found;
      const onBody = parser[kOnBody];
      parser[kOnBody] = undefined;
      socket.once('close', () => {
        parser[kOnBody] = onBody;
      });
    }
  }
  socket.pause();
  // Node resumes a socket once an answer is written (to drop the rest of the body): this one stays paused until it
  // is closed, so nothing more is read, parsed or paid for.
  socket.resume = keepPaused;
}

function keepPaused(this: Socket): Socket {
  return this;
}

/** Whether `req` came on a connection whose reading was stopped: it closes after the answer already decided there. */
export function onStoppedConnection(req: IncomingMessage): boolean {
  return (req.socket as Watched | null)?.[STOPPED] === true;
}
