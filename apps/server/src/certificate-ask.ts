import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizeDomainName, type DomainStore } from '@petstore/core';

/** Where the TLS server in front asks whether a name may have a certificate (Caddy's on-demand `ask`). */
export const ASK_PATH = '/tls/ask';

function answer(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Answers `GET /tls/ask?domain=NAME` on the internal listener: 200 only for a verified custom domain, 404 for any
 * other name, 400 without one; read from the database on each ask, so a removed domain gets no new certificate.
 * Returns false for other paths, for the listener's next handler.
 * @example const ask = createCertificateAsk(domains); createServer((req, res) => ask(req, res) || metrics(req, res))
 */
export function createCertificateAsk(domains: DomainStore): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://internal');
    if (url.pathname !== ASK_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      answer(res, 405, 'Use GET.\n');
      return true;
    }
    const name = normalizeDomainName(url.searchParams.get('domain') ?? '');
    if (name === undefined) {
      answer(res, 400, 'Give ?domain=NAME.\n');
      return true;
    }
    domains.get(name).then(
      (domain) =>
        domain?.state === 'verified'
          ? answer(res, 200, `${name} is verified.\n`)
          : answer(res, 404, `${name} is not a verified domain of this service.\n`),
      () => answer(res, 503, 'The database does not answer.\n'),
    );
    return true;
  };
}
