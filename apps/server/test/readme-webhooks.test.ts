import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { listen } from '@petstore/testing';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startServer, type RunningServer } from '../src/server.js';

// README "Receiving webhooks": its Express receiver and its Fetch handler, extracted from the README as written,
// type-checked, and run for real: each gets a delivery of the real service, verifies it with @petstore/client and
// logs the event, and refuses one that is not signed with its secret.

const KEY = 'readme-webhooks-key-0123456789';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = await readFile(join(root, 'README.md'), 'utf8');

/** The block the README shows after `<!-- snippet: NAME -->`. */
function snippet(name: string): string {
  const found = [...readme.matchAll(/<!-- snippet: ([a-z-]+) -->\n```ts\n([\s\S]*?)\n```/g)].filter(([, each]) => each === name);
  if (found.length !== 1) throw new Error(`the README holds ${found.length} snippets named ${name}, not 1`);
  return found[0]![2]!;
}

/** `text` with `literal` replaced, which must occur in it once, so the test never runs what the README no longer says. */
function replacing(text: string, literal: string, replacement: string): string {
  if (text.split(literal).length !== 2) throw new Error(`the snippet no longer contains ${JSON.stringify(literal)} once`);
  return text.replace(literal, replacement);
}

/** Type errors of in-memory files beside this test, checked with apps/server's tsconfig, as `line:TScode message`. */
function typeErrors(files: Record<string, string>): string[] {
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const { config } = ts.readConfigFile(join(root, 'apps/server/tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, join(root, 'apps/server'));
  const inMemory = new Map(Object.entries(files).map(([name, text]) => [join(dir, name), text]));
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const { getSourceFile, fileExists, readFile: read } = host;
  host.getSourceFile = (fileName, language, ...rest) => {
    const text = inMemory.get(fileName);
    return text === undefined ? getSourceFile.call(host, fileName, language, ...rest) : ts.createSourceFile(fileName, text, language);
  };
  host.fileExists = (fileName) => inMemory.has(fileName) || fileExists.call(host, fileName);
  host.readFile = (fileName) => inMemory.get(fileName) ?? read.call(host, fileName);
  const program = ts.createProgram({ rootNames: [...inMemory.keys()], options: { ...options, noEmit: true }, host });
  return [...inMemory.keys()].flatMap((fileName) => {
    const file = program.getSourceFile(fileName)!;
    return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
      (d) => `${fileName}:${file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}:TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  });
}

/** Polls until `check` holds, or fails after 10 s saying what it waited for. */
async function until(check: () => boolean | Promise<boolean>, what: string) {
  const end = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the README's webhook receivers", () => {
  let running: RunningServer;
  let scratch: string;
  let log: MockInstance<typeof console.log>;
  const closing: (() => Promise<void>)[] = [];

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${running.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } });

  /**
   * Runs a snippet as written but for where its imports come from, named by path since it runs from a scratch folder:
   * @petstore/client's sources, and the repository's express.
   */
  async function load(name: string, code: string): Promise<Record<string, unknown>> {
    let text = replacing(code, "from '@petstore/client/webhooks';", `from ${JSON.stringify(join(root, 'packages/client/src/webhooks.ts'))};`);
    if (text.includes("from 'express';")) text = replacing(text, "from 'express';", `from ${JSON.stringify(fileURLToPath(import.meta.resolve('express')))};`);
    const file = join(scratch, `${name}.ts`);
    await writeFile(file, text);
    return import(pathToFileURL(file).href) as Promise<Record<string, unknown>>;
  }

  /** Registers `url` for `pet.created`, gives the receivers its secret as the README says, and creates a pet. */
  async function deliverTo(url: string) {
    const endpoint = (await (await api('/webhooks', { method: 'POST', body: JSON.stringify({ url, events: ['pet.created'] }) })).json()) as { id: number; secret: string };
    closing.push(async () => void (await api(`/webhooks/${endpoint.id}`, { method: 'DELETE' })));
    vi.stubEnv('PETSTORE_WEBHOOK_SECRET', endpoint.secret);
    const pet = (await (await api('/pets', { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 1 }) })).json()) as { id: number };
    await until(() => log.mock.calls.some(([type, id]) => type === 'pet.created' && id === pet.id), `the receiver to log pet ${pet.id}`);
    // The service records the attempt once it has the answer.
    let deliveries: { status: string }[] = [];
    await until(async () => {
      deliveries = (await (await api(`/webhooks/${endpoint.id}/deliveries`)).json()) as { status: string }[];
      return deliveries.every((delivery) => delivery.status !== 'pending');
    }, 'the delivery to be settled');
    return { pet, deliveries };
  }

  /** A POST that looks like a delivery but is signed with no one's secret: the receiver must refuse it. */
  const forged = (url: string) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: JSON.stringify({ type: 'pet.created', timestamp: new Date().toISOString(), data: { id: 999_999, name: 'Mallory', categoryId: 1, status: 'available' } }),
    });

  beforeAll(async () => {
    running = await startServer(
      loadConfig({
        PORT: '0',
        PETSTORE_DATA_DIR: 'memory://',
        PETSTORE_API_KEYS: `${KEY}:pro`,
        PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true',
        PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: '50,100',
      }),
    );
    scratch = await mkdtemp(join(tmpdir(), 'petstore-readme-webhooks-'));
  });

  afterAll(async () => {
    await running?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  beforeEach(() => {
    log = vi.spyOn(console, 'log').mockImplementation(() => {});
  });

  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('type-check as written', { timeout: 120_000 }, () => {
    expect(typeErrors({ 'readme-webhook-express.ts': snippet('webhook-express'), 'readme-webhook-fetch.ts': snippet('webhook-fetch') })).toEqual([]);
  });

  it('Express: verifies a real delivery from the raw body, answers 204, and refuses a forged one with 400', async () => {
    vi.stubEnv('PORT', '0');
    const { server } = (await load('webhook-express', replacing(snippet('webhook-express'), 'app.listen(', 'export const server = app.listen('))) as { server: Server };
    closing.push(
      () =>
        new Promise((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    await new Promise((resolve) => (server.listening ? resolve(undefined) : server.once('listening', resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/petstore`;

    const { pet, deliveries } = await deliverTo(url);
    expect(log).toHaveBeenCalledWith('pet.created', pet.id);
    expect(deliveries).toMatchObject([{ eventType: 'pet.created', status: 'delivered', responseStatus: 204, attempts: 1 }]);

    log.mockClear();
    const refused = await forged(url);
    expect([refused.status, await refused.text()]).toEqual([400, 'bad_signature']);
    expect(log).not.toHaveBeenCalled();
  });

  it('Fetch: verifies a real delivery from request.text(), answers 204, and refuses a forged one with 400', async () => {
    const { POST } = (await load('webhook-fetch', snippet('webhook-fetch'))) as { POST: (request: Request) => Promise<Response> };
    // The smallest Node adapter: the request as a Fetch Request, the Response written back.
    const served = await listen(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const response = await POST(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }));
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
    });
    closing.push(served.close);
    const url = `${served.url}/api/webhooks/petstore`;

    const { pet, deliveries } = await deliverTo(url);
    expect(log).toHaveBeenCalledWith('pet.created', pet.id);
    expect(deliveries).toMatchObject([{ eventType: 'pet.created', status: 'delivered', responseStatus: 204, attempts: 1 }]);

    log.mockClear();
    const refused = await forged(url);
    expect([refused.status, await refused.text()]).toEqual([400, 'bad_signature']);
    expect(log).not.toHaveBeenCalled();
  });
});
