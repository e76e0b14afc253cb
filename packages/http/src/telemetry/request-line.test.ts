import { pino } from 'pino';
import { pino as pino9 } from 'pino-9';
import { describe, expect, it } from 'vitest';
import { PINO_VERSIONS_CHECKED, requestLine, usesPinoFastPath, type PetStoreLogger, type RequestEntry } from './request-line.js';

type Factory = typeof pino;
const versions: [string, Factory][] = [
  ['pino 10', pino],
  ['pino 9', pino9 as unknown as Factory],
];

function capture(make: Factory, options: Parameters<Factory>[0] = {}) {
  const lines: string[] = [];
  const logger = make(
    { level: 'info', base: { service: 'petstore' }, timestamp: () => ',"time":"2026-11-23T07:00:00.000Z"', ...(options as object) },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

const entries: RequestEntry[] = [
  { reqId: 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', method: 'GET', route: '/v1/pets', status: 200, durationMs: 1.23, keyId: 7 },
  { reqId: 'a"quote\\back\u2028slash', method: 'POST', route: 'unmatched', status: 404, durationMs: 0, keyId: undefined },
  { reqId: undefined, method: 'M-SEARCH', route: '/trpc/pets.list', status: 405, durationMs: 12.5, keyId: undefined },
];

/** Resolves when the event loop's current turn has ended (and with it, the held request lines were written). */
const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

const viaInfo = (logger: PetStoreLogger) => {
  for (const { keyId, ...entry } of entries) logger.info({ ...entry, ...(keyId !== undefined ? { keyId } : {}) }, 'request');
};

describe('requestLine', () => {
  it('is pinned to the pino versions installed here, the ones the byte-for-byte tests below run against', () => {
    const installed = versions.map(([, make]) => (capture(make).logger as unknown as { version: string }).version);
    expect([...PINO_VERSIONS_CHECKED].sort()).toEqual(installed.sort());
  });

  for (const [name, make] of versions) {
    it(`writes from its template exactly the lines ${name} writes for the same fields, in one write when the turn ends`, async () => {
      const fast = capture(make);
      const general = capture(make);
      expect(usesPinoFastPath(fast.logger)).toBe(true);
      const logRequest = requestLine(fast.logger);
      for (const entry of entries) logRequest(entry);
      expect(fast.lines).toEqual([]);
      await turnEnd();
      viaInfo(general.logger);
      expect(fast.lines).toEqual([general.lines.join('')]);
      fast.lines.splice(0, 1, ...fast.lines[0]!.split(/(?<=\n)/));
      expect(fast.lines).toEqual(general.lines);
      expect(JSON.parse(fast.lines[1]!)).toMatchObject({ reqId: 'a"quote\\back\u2028slash', status: 404 });
    });
  }

  it("keeps a child logger's bindings, follows setBindings, and writes nothing when info is off", async () => {
    const { logger, lines } = capture(pino);
    const child = logger.child({ instance: 'a' });
    const logRequest = requestLine(child);
    logRequest(entries[0]!);
    await turnEnd();
    child.setBindings({ instance: 'b' });
    logRequest(entries[0]!);
    await turnEnd();
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { service: 'petstore', instance: 'a', msg: 'request', keyId: 7 },
      { instance: 'b' },
    ]);
    const quiet = capture(pino, { level: 'warn' });
    requestLine(quiet.logger)(entries[0]!);
    await turnEnd();
    expect(quiet.lines).toEqual([]);
  });

  it('goes through logger.info for a pino version it was not checked against', async () => {
    const { logger, lines } = capture(pino);
    const other = Object.create(logger, { version: { value: '11.0.0' } }) as typeof logger;
    expect(usesPinoFastPath(other)).toBe(false);
    requestLine(other)(entries[0]!);
    await turnEnd();
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'request', route: '/v1/pets', keyId: 7 });
  });

  it("goes through logger.info when the host's options change the line (mixin, level labels, message key, redaction)", async () => {
    const options: Parameters<Factory>[0][] = [
      { mixin: () => ({ traceId: 'abc' }) },
      { formatters: { level: (label) => ({ level: label }) } },
      { messageKey: 'message' },
      { redact: ['reqId'] },
    ];
    for (const option of options) {
      const fast = capture(pino, option);
      const general = capture(pino, option);
      expect(usesPinoFastPath(fast.logger)).toBe(false);
      const logRequest = requestLine(fast.logger);
      for (const entry of entries) logRequest(entry);
      await turnEnd();
      viaInfo(general.logger);
      expect(fast.lines).toEqual(general.lines);
    }
  });

  it('goes through pino for destinations that want its metadata (multistream)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, pino.multistream([{ stream: { write: (line: string) => void lines.push(line) } }]));
    expect(usesPinoFastPath(logger)).toBe(false);
    requestLine(logger)(entries[0]!);
    await turnEnd();
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'request', route: '/v1/pets', keyId: 7 });
  });

  it('hands any other logger the structured fields through info(fields, "request"), when the turn ends', async () => {
    const calls: [object, string][] = [];
    const logger = { info: (fields: object, message: string) => void calls.push([fields, message]), warn() {}, error() {} };
    const logRequest = requestLine(logger);
    logRequest(entries[0]!);
    logRequest(entries[2]!);
    expect(calls).toEqual([]);
    await turnEnd();
    expect(calls).toEqual([
      [{ reqId: entries[0]!.reqId, method: 'GET', route: '/v1/pets', status: 200, durationMs: 1.23, keyId: 7 }, 'request'],
      [{ reqId: undefined, method: 'M-SEARCH', route: '/trpc/pets.list', status: 405, durationMs: 12.5 }, 'request'],
    ]);
  });

  it('writes health checks (/healthz, /livez, under a base path too) at debug, never at info', async () => {
    const health = (route: string): RequestEntry => ({ reqId: 'h', method: 'GET', route, status: 200, durationMs: 0.1, keyId: undefined });
    const atInfo = capture(pino);
    const logInfo = requestLine(atInfo.logger);
    for (const route of ['/healthz', '/livez', '/petstore/healthz']) logInfo(health(route));
    logInfo(entries[0]!);
    await turnEnd();
    expect(atInfo.lines.map((line) => JSON.parse(line).route)).toEqual(['/v1/pets']);

    const atDebug = capture(pino, { level: 'debug' });
    const logDebug = requestLine(atDebug.logger);
    logDebug(health('/livez'));
    await turnEnd();
    expect(atDebug.lines.map((line) => JSON.parse(line))).toMatchObject([{ level: 20, msg: 'request', route: '/livez' }]);
  });
});
