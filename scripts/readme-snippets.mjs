// The README's snippets as a consumer would paste them. `extract README DIR` writes every fenced block that follows
// a `<!-- snippet: NAME -->` line to DIR/NAME.ts, verbatim (and a shell block after `<!-- commands: NAME -->` to
// DIR/../NAME.sh); `extract-all README DIR PREFIX` writes every TypeScript block of a package's README. `run PROJECT` runs the compiled snippets of a scratch
// project (PROJECT/dist) as the README describes them: the in-process calls, then each mounting snippet as a server
// on a free port, checked with a request to its API and its docs, and the clients (tRPC, REST and tRPC with retries)
// against the node:http one.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [command, first, second] = process.argv.slice(2);

async function extract(readme, dir) {
  const text = await readFile(readme, 'utf8');
  const blocks = [...text.matchAll(/<!-- snippet: ([a-z-]+) -->\n```ts\n([\s\S]*?)\n```/g)];
  if (blocks.length === 0) throw new Error(`no snippets in ${readme}`);
  await mkdir(dir, { recursive: true });
  for (const [, name, code] of blocks) await writeFile(join(dir, `${name}.ts`), `${code}\n`);
  // Shell blocks after a `<!-- commands: NAME -->` line, run as written by `run`.
  const commands = [...text.matchAll(/<!-- commands: ([a-z-]+) -->\n```sh\n([\s\S]*?)\n```/g)];
  for (const [, name, code] of commands) await writeFile(join(dir, '..', `${name}.sh`), `set -e\n${code}\n`);
  console.log(`readme-snippets: ${blocks.map(([, name]) => name).join(', ')}${commands.length ? `; commands ${commands.map(([, name]) => name).join(', ')}` : ''}`);
}

/** Every TypeScript block of a README, fenced with ts, to DIR/PREFIX-readme-N.ts: a package README's fragments. */
async function extractAll(readme, dir, prefix) {
  const text = await readFile(readme, 'utf8');
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)\n```/g)];
  await mkdir(dir, { recursive: true });
  for (const [i, [, code]] of blocks.entries()) await writeFile(join(dir, `${prefix}-readme-${i + 1}.ts`), `${code}\n`);
  console.log(`readme-snippets: ${blocks.length} fragments of ${readme}`);
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function start(project, name, env) {
  const child = spawn(process.execPath, [join(project, 'dist', `${name}.js`)], {
    cwd: project,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return child;
}

async function waitFor(url, headers = {}) {
  for (let i = 0; i < 150; i++) {
    const status = await fetch(url, { headers }).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200`);
}

async function runToEnd(project, name, env) {
  const child = start(project, name, env);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${name} exited with ${code}`);
}

async function run(project) {
  const key = `readme-key-${randomBytes(8).toString('hex')}`;
  await runToEnd(project, 'in-process', { PETSTORE_KEY: key });
  const auth = { authorization: `Bearer ${key}` };
  for (const [name, api, own] of [
    ['mount-node', '/v1'],
    ['mount-express', '/petstore/v1', '/petstore/about'],
    ['mount-fastify', '/petstore/v1'],
    ['mount-hono', '/petstore/v1', '/hello'],
    ['mount-telemetry', '/v1'],
  ]) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = start(project, name, { PORT: String(port), PETSTORE_KEY: key });
    try {
      await waitFor(`${base}${api}/pets`, auth);
      await waitFor(`${base}${api}/docs/`);
      if (own) await waitFor(`${base}${own}`);
      if (name === 'mount-node') {
        for (const client of ['trpc-client', 'rest-client', 'trpc-links']) await runToEnd(project, client, { PETSTORE_URL: base, PETSTORE_KEY: key });
      }
      console.log(`readme-snippets: ${name} serves ${api}/pets and ${api}/docs/${own ? ` beside the host's ${own}` : ''}`);
    } finally {
      server.kill();
    }
  }
  await checkNextRoute(project);
  await checkHostTrpc(project);
  await checkHostDatabase(project);
}

/** The host-database snippet on a PostgreSQL database of its own (made on DATABASE_URL's server, dropped after). */
async function checkHostDatabase(project) {
  if (!process.env.DATABASE_URL) {
    console.log('readme-snippets: host-database not run: DATABASE_URL is not set');
    return;
  }
  const { default: pg } = await import('pg');
  const url = new URL(process.env.DATABASE_URL);
  const name = `petstore_snippet_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    url.pathname = `/${name}`;
    const child = spawn(process.execPath, [join(project, 'dist', 'host-database.js')], {
      cwd: project,
      env: { ...process.env, DATABASE_URL: url.toString() },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    // 'close', not 'exit': by then all it printed has been read.
    const code = await new Promise((resolve) => child.once('close', resolve));
    if (code !== 0 || out.trim() !== 'Rex') throw new Error(`host-database exited with ${code}, printing ${JSON.stringify(out)}`);
    console.log("readme-snippets: host-database migrates (migrateToLatest) and runs the store on the host's pool, in schema petstore");
    // The README's key tool commands for hosts, as written, on that database and schema.
    const keys = spawn('bash', [join(project, 'host-keys.sh')], {
      cwd: project,
      env: { ...process.env, DATABASE_URL: url.toString() },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    keys.stdout.on('data', (chunk) => (printed += chunk));
    const keysCode = await new Promise((resolve) => keys.once('close', resolve));
    if (keysCode !== 0 || !/^psk_/m.test(printed) || !printed.includes('Key 1 revoked.')) {
      throw new Error(`the host-keys commands exited with ${keysCode}, printing ${JSON.stringify(printed)}`);
    }
    console.log('readme-snippets: npx @petstore/cli creates, lists and revokes keys in schema petstore');
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/** The route handler module as Next.js would call it: one exported function per method, given a Request. */
async function checkNextRoute(project) {
  const route = await import(pathToFileURL(join(project, 'dist', 'next-route.js')).href);
  const health = await route.GET(new Request('https://app.example.com/api/petstore/healthz'));
  const refused = await route.GET(new Request('https://app.example.com/api/petstore/v1/pets'));
  const body = await refused.json();
  if (health.status !== 200 || refused.status !== 401 || body.code !== 'missing_api_key') {
    throw new Error(`next-route answered ${health.status} and ${refused.status} ${JSON.stringify(body)}`);
  }
  console.log('readme-snippets: next-route answers /api/petstore/healthz and a 401 on /api/petstore/v1/pets');
}

/**
 * The host's tRPC server, its base procedure extending the context with the user: a logged-in user gets the pets
 * procedures under its own quota, with the rate-limit headers, a batch counting each call and one of more than 100
 * calls refused before any runs; the host's own errors stay its own.
 */
async function checkHostTrpc(project) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = start(project, 'host-trpc', { PORT: String(port) });
  const alice = { 'x-user': 'alice' };
  try {
    await waitFor(`${base}/hello`);
    const list = await fetch(`${base}/pets.list?input=${encodeURIComponent('{}')}`, { headers: alice });
    const batch = await fetch(`${base}/pets.list,pets.page?batch=1&input=${encodeURIComponent('{"0":{},"1":{}}')}`, { headers: alice });
    const oversize = await fetch(`${base}/${Array.from({ length: 101 }, () => 'pets.list').join(',')}?batch=1`, { headers: alice });
    const anonymous = await fetch(`${base}/pets.list?input=${encodeURIComponent('{}')}`);
    const error = (await anonymous.json()).error;
    const seen = {
      list: [list.status, list.headers.get('x-ratelimit-limit'), list.headers.get('x-ratelimit-remaining')],
      batch: [batch.status, batch.headers.get('x-ratelimit-remaining')],
      oversize: oversize.status,
      anonymous: [anonymous.status, error?.data?.error ?? null],
    };
    const expected = { list: [200, '60', '59'], batch: [200, '57'], oversize: 400, anonymous: [401, null] };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) throw new Error(`host-trpc answered ${JSON.stringify(seen)}`);
    console.log("readme-snippets: host-trpc serves pets.list per user behind its middleware (limit 60, each call of a batch counted, 101 calls refused) and keeps the host's own 401");
  } finally {
    server.kill();
  }
}

if (command === 'extract') await extract(first, second);
else if (command === 'extract-all') await extractAll(first, second, process.argv[5]);
else if (command === 'run') {
  await run(first);
  process.exit(0);
}
else throw new Error('usage: readme-snippets.mjs extract README DIR | run PROJECT');
