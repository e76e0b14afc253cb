import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How many pieces a request body may arrive in (chunks of a chunked body, or reads of the socket): 256. */
export const MAX_BODY_PIECES = 256;

/**
 * Why a body costs by its pieces: Node's HTTP parser calls JavaScript once per piece of a body (each chunk of a
 * chunked body, each read of the socket), whether anyone reads the body or not. So a reader counts the pieces of the
 * body it reads and refuses it past its limit (413), and a body nobody will read (refused, answered, or in too many
 * pieces) is stopped: its socket is paused and stays paused, so nothing more is read or parsed than what had already
 * arrived (at most one socket read), and the connection closes after the answer (see closing-answer.ts). Node's
 * parser itself is not touched: only its public stream and socket.
 */
const PIECES = Symbol('petstore.bodyPieces');
/** The event a request emits when its body is stopped, for a reader waiting on it. */
export const BODY_STOPPED = Symbol('petstore.bodyStopped');

type Counted = IncomingMessage & { [PIECES]?: number };
const STOPPED = Symbol('petstore.connectionStopped');
type Watched = Socket & { [STOPPED]?: true };

/** Whether `req` says it has a body (a `Content-Length` above 0, or a `Transfer-Encoding`). */
export function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length === undefined ? req.headers['transfer-encoding'] !== undefined : Number(length) > 0;
}

/** Whether the body of `req` was stopped: past its pieces, or left unread by an answer that closes the connection. */
export function bodyStopped(req: IncomingMessage): boolean {
  return ((req as Counted)[PIECES] ?? 0) === Number.POSITIVE_INFINITY;
}

/**
 * Reads no more of `req`'s body, nor anything after it on its connection (which must close after the answer): the
 * socket is paused for good.
 * @example stopBody(req); res.setHeader('connection', 'close')
 */
export function stopBody(req: IncomingMessage): void {
  if ((req as Counted)[PIECES] === Number.POSITIVE_INFINITY) return;
  (req as Counted)[PIECES] = Number.POSITIVE_INFINITY;
  req.emit(BODY_STOPPED);
  const socket = req.socket as Watched | null;
  if (!socket) return;
  socket[STOPPED] = true;
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
