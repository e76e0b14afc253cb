import { listen } from '@petstore/testing';

/** One scripted answer, or `drop`: the connection is closed once the request has arrived, with no answer. */
export type ScriptedAnswer = { status: number; headers?: Record<string, string>; body?: unknown } | 'drop';

/** A request the scripted server received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** `performance.now()` when it arrived. */
  at: number;
}

/**
 * A real HTTP server that answers each request with the next scripted answer (the last one once the script is
 * spent), for sequences the real service cannot be made to give on demand (a 429 with `Retry-After: 1`).
 * @example const server = await scriptedServer([{ status: 429, headers: { 'retry-after': '1' }, body }, { status: 201, body: pet }])
 */
export async function scriptedServer(script: ScriptedAnswer[]) {
  const requests: ReceivedRequest[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body, at: performance.now() });
      const answer = script.length > 1 ? script.shift()! : script[0]!;
      if (answer === 'drop') return void req.socket.destroy();
      const json = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(json);
    });
  });
  return { ...server, base: `${server.url}/v1`, requests };
}

/**
 * The Error body the service answers with.
 * @example errorBody(429, 'rate_limited')
 */
export const errorBody = (status: number, code: string, message = `${code} (scripted)`) => ({ code, message, status });
