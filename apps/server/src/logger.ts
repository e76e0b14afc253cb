import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * The service's logger: JSON lines, one per event, on stdout. Readable when stdout is a terminal.
 *
 * The destination (sonic-boom) writes asynchronously, so the request path never waits for the pipe, and in pieces of
 * 8 KiB or every 50 ms, whichever comes first, so a busy server makes one write (and wakes whoever reads its output
 * once) per thirty lines or so rather than per request. pino writes what is left when the process exits.
 * @example createLogger('info').info('ready')
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: 'petstore' }, timestamp: isoTimeOncePerMs };
  if (destination) return pino(options, destination as DestinationStream);
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(options, pino.destination({ dest: 1, sync: false, minLength: 8 * 1024, periodicFlush: 50 }));
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
