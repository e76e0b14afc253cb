import { format } from 'node:util';
import { pino, type DestinationStream, type Logger } from 'pino';

const BATCH_BYTES = 16 * 1024;
const BATCH_MS = 20;
const STDOUT = 1;

/**
 * The service's logger: JSON lines, one per event, on stdout. Readable when stdout is a terminal.
 *
 * Lines are gathered and written in pieces of 16 KiB, or 20 ms after the first line of a piece: a busy server then
 * makes one write (and wakes whoever reads its output once) per hundred lines or so. Each piece is written
 * synchronously, as Node writes `process.stdout` to a pipe on Linux: an asynchronous write still in flight when the
 * process exits could land after the lines written at exit, out of order. Lines still held at exit are written then.
 * @example createLogger('info').info('ready')
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: 'petstore' }, timestamp: isoTimeOncePerMs };
  if (destination) return pino(options, destination as DestinationStream);
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(options, gathered(pino.destination({ dest: STDOUT, sync: true })));
}

/** Holds lines and writes them to `out` in pieces; at exit, what is still held. */
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
  process.on('exit', release);
  return {
    write(line: string) {
      held += line;
      if (held.length >= BATCH_BYTES) release();
      else timer ??= setTimeout(release, BATCH_MS).unref();
    },
  };
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

/**
 * Routes what dependencies print with `console` (ioredis warns with `console.warn` that a password was given to a
 * Redis that needs none) through the logger, as JSON lines of the matching level with `source: "console"`: the
 * service's output stays one JSON object a line. For the service's own process only; a library never does this.
 * @example routeConsole(createLogger('info'))
 */
export function routeConsole(logger: Logger): void {
  const to = (level: 'debug' | 'info' | 'warn' | 'error') => (...args: unknown[]) => logger[level]({ source: 'console' }, format(...args));
  console.debug = to('debug');
  console.log = to('info');
  console.info = to('info');
  console.warn = to('warn');
  console.error = to('error');
}
