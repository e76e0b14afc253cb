import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLine, type RequestEntry } from './request-line.js';

function capture(level = 'info') {
  const lines: string[] = [];
  const logger = pino(
    { level, base: { service: 'petstore' }, timestamp: () => ',"time":"2026-11-23T07:00:00.000Z"' },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

const entries: RequestEntry[] = [
  { reqId: 'b3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d', method: 'GET', route: '/v1/pets', status: 200, durationMs: 1.23, keyId: 7 },
  { reqId: 'a"quote\\back\u2028slash', method: 'POST', route: 'unmatched', status: 404, durationMs: 0, keyId: undefined },
  { reqId: undefined, method: 'M-SEARCH', route: '/trpc/pets.list', status: 405, durationMs: 12.5, keyId: undefined },
];

describe('requestLine', () => {
  it('writes exactly the line pino writes for the same fields', () => {
    const fast = capture();
    const general = capture();
    const logRequest = requestLine(fast.logger);
    for (const { keyId, ...entry } of entries) {
      logRequest({ ...entry, keyId });
      general.logger.info({ ...entry, ...(keyId !== undefined ? { keyId } : {}) }, 'request');
    }
    expect(fast.lines).toEqual(general.lines);
    expect(JSON.parse(fast.lines[1]!)).toMatchObject({ reqId: 'a"quote\\back\u2028slash', status: 404 });
  });

  it("keeps a child logger's bindings and writes nothing when info is off", () => {
    const { logger, lines } = capture();
    requestLine(logger.child({ instance: 'a' }))(entries[0]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'petstore', instance: 'a', msg: 'request', keyId: 7 });
    const quiet = capture('warn');
    requestLine(quiet.logger)(entries[0]!);
    expect(quiet.lines).toEqual([]);
  });

  it('goes through pino for destinations that want its metadata (multistream)', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, pino.multistream([{ stream: { write: (line: string) => void lines.push(line) } }]));
    requestLine(logger)(entries[0]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'request', route: '/v1/pets', keyId: 7 });
  });
});
