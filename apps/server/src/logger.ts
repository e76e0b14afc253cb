import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * The service's logger: JSON lines, one per event, on stdout. Readable when stdout is a terminal.
 *
 * Lines logged during one event-loop turn are handed to the asynchronous destination together when the turn ends,
 * so a busy server makes one write (and wakes whoever reads its output once) per turn rather than per request, and
 * the request path never waits for the pipe. Lines still held when the process exits are written synchronously.
 * @example createLogger('info').info('ready')
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: 'petstore' }, timestamp: isoTimeOncePerMs };
  if (destination) return pino(options, destination as DestinationStream);
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(options, linesPerTurn(pino.destination({ dest: 1, sync: false })));
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

/** A destination that gathers the lines of one event-loop turn and writes them to `out` in one piece. */
function linesPerTurn(out: ReturnType<typeof pino.destination>): DestinationStream {
  let held = '';
  const release = () => {
    const lines = held;
    held = '';
    if (lines) out.write(lines);
  };
  process.on('exit', () => {
    if (!held) return;
    release();
    out.flushSync();
  });
  return {
    write(line: string) {
      if (!held) setImmediate(release);
      held += line;
    },
  };
}
