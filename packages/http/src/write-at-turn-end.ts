import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Why responses wait for the end of the event-loop turn: a write to a socket also wakes the process at the other end
 * (on one host the kernel does that inside `writev`). When every response goes out the moment it is ready, a busy
 * server wakes an idle client once per response, and on these machines that wake-up costs more than the write
 * itself. Responses finished in one turn are written together when the turn ends (`setImmediate`), so the client
 * wakes once and finds them all. An idle server answers as soon as before: a turn with one request ends right after
 * it.
 */
interface Write {
  res: ServerResponse;
  status: number;
  headers: OutgoingHttpHeaders;
  body: string | Buffer;
}

let queue: Write[] = [];

function flush(): void {
  const writes = queue;
  queue = [];
  for (const { res, status, headers, body } of writes) {
    try {
      res.writeHead(status, headers);
      res.end(body);
    } catch (error) {
      // Headers that cannot be written (a value with a line break, say) cost this response, never the others.
      res.destroy(error as Error);
    }
  }
}

const ANSWERED = Symbol('petstore.answered');
type Answered = ServerResponse & { [ANSWERED]?: true };

/** True once a response has been written or queued by {@link writeAtTurnEnd}, or sent by anyone else. */
export function isAnswered(res: ServerResponse): boolean {
  return res.headersSent || (res as Answered)[ANSWERED] === true;
}

/**
 * Queues a whole response (status, headers, body) to be written when the current event-loop turn ends, in one
 * `writeHead` and `end`.
 * @example writeAtTurnEnd(res, 200, { 'content-type': 'text/plain', 'content-length': '2' }, 'ok')
 */
export function writeAtTurnEnd(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: string | Buffer): void {
  (res as Answered)[ANSWERED] = true;
  if (queue.length === 0) setImmediate(flush);
  queue.push({ res, status, headers, body });
}
