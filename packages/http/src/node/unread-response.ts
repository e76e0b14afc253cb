import type { ServerResponse } from 'node:http';

/** How long a written response may wait for its client to take it before the connection closes: 10 s (DECISIONS). */
export const WRITE_TIMEOUT_MS = 10_000;

/**
 * Closes the connection of a response its client has not taken within {@link WRITE_TIMEOUT_MS}: one still buffered in
 * the process, or queued behind an earlier response on its connection. A client that stops reading cannot hold a
 * socket and the memory behind it. Costs nothing when the response went out at once.
 * @example res.end(body); closeIfUnread(res)
 */
export function closeIfUnread(res: ServerResponse, timeoutMs = WRITE_TIMEOUT_MS): void {
  if (res.writableFinished || res.writableLength === 0) return;
  const timer = setTimeout(() => res.destroy(), timeoutMs).unref();
  res.once('finish', () => clearTimeout(timer));
}
