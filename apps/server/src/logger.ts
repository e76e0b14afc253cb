import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';

const BATCH_BYTES = 16 * 1024;
const BATCH_MS = 20;
const STDOUT = 1;

/**
 * The service's logger: JSON lines, one per event, on stdout. Readable when stdout is a terminal.
 *
 * Lines are gathered and handed to the asynchronous destination (sonic-boom) in pieces of 16 KiB, or 20 ms after
 * the first line of a piece: a busy server then makes one write (and wakes whoever reads its output once) per
 * hundred lines or so, the request path never waits for the pipe, and sonic-boom measures one piece rather than
 * its whole buffer for every line. Lines still held when the process exits are written synchronously.
 * @example createLogger('info').info('ready')
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: 'petstore' }, timestamp: isoTimeOncePerMs };
  if (destination) return pino(options, destination as DestinationStream);
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(options, gathered(pino.destination({ dest: STDOUT, sync: false })));
}

/** Holds lines and writes them to `out` in pieces; at exit, after what `out` still holds, synchronously. */
function gathered(out: ReturnType<typeof pino.destination>): DestinationStream {
  let held = '';
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    clearTimeout(timer);
    timer = undefined;
    const lines = held;
    held = '';
    if (lines) out.write(lines);
  };
  // pino's own exit hook, registered with the destination before this one, has written what `out` held by now.
  process.on('exit', () => {
    clearTimeout(timer);
    if (held) writeAllSync(STDOUT, Buffer.from(held));
  });
  return {
    write(line: string) {
      held += line;
      if (held.length >= BATCH_BYTES) release();
      else timer ??= setTimeout(release, BATCH_MS).unref();
    },
  };
}

/** Writes all of `bytes`, waiting out a full non-blocking pipe; gives up if the reader is gone. */
function writeAllSync(fd: number, bytes: Buffer) {
  let rest = bytes;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

let lastMs = 0;
let lastTime = '';

/** pino's ISO `time` field, formatted once per millisecond rather than once per line (a busy server logs dozens). */
function isoTimeOncePerMs(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}
