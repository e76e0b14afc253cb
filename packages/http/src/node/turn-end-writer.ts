import type { ServerResponse } from 'node:http';

/**
 * Why responses may wait for the end of the event-loop turn: a write to a socket also wakes the process at the other
 * end (on one host the kernel does that inside `writev`). When every response goes out the moment it is ready, a busy
 * server wakes an idle client once per response, and on these machines that wake-up costs more than the write
 * itself. Responses finished in one turn are written together when the turn ends (`setImmediate`), so the client
 * wakes once and finds them all. An idle server answers as soon as before: a turn with one request ends right after
 * it. Each writer has its own queue: a handler that turns it on delays only its own responses.
 */
interface Write {
  res: ServerResponse;
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/**
 * A writer that queues whole responses (status, headers, body) and writes them when the current turn ends, each in
 * one `writeHead` and `end`, then hands each to `written` (if given).
 * @example const write = createTurnEndWriter(); write(res, 200, { 'content-length': '2' }, 'ok')
 */
export function createTurnEndWriter(written?: (res: ServerResponse) => void) {
  let queue: Write[] = [];
  const flush = () => {
    const writes = queue;
    queue = [];
    for (const { res, status, headers, body } of writes) {
      try {
        res.writeHead(status, headers);
        res.end(body);
        written?.(res);
      } catch (error) {
        // Headers that cannot be written (a value with a line break, say) cost this response, never the others.
        res.destroy(error as Error);
      }
    }
  };
  return (res: ServerResponse, status: number, headers: Record<string, string>, body: string | Uint8Array | undefined) => {
    if (queue.length === 0) setImmediate(flush);
    queue.push({ res, status, headers, body });
  };
}
