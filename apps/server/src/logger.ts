import { pino, type Logger } from 'pino';

/**
 * The service's logger: JSON lines, one per event, written to stdout asynchronously (lines that pile up while a write
 * is under way go out together, and the request path never waits for the pipe); flushed on exit by pino itself.
 * Readable when stdout is a terminal.
 * @example createLogger('info').info('ready')
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { service: 'petstore' }, timestamp: pino.stdTimeFunctions.isoTime };
  if (destination) return pino(options, destination as pino.DestinationStream);
  if (process.stdout.isTTY) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss' } } });
  }
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
