#!/usr/bin/env node
// Lints the OpenAPI document as a real service serves it (/v1/openapi.json, with https public URLs) with Spectral:
// spectral:oas and the OWASP API Security ruleset, as .spectral.yaml sets them. Fails on any error; prints every
// warning (docs/decisions.md says why those that remain stay). Needs a build (npm run build); works offline, since
// both rulesets are local packages.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const mainJs = join(root, 'apps/server/dist/main.js');
const spectral = join(root, 'node_modules/.bin/spectral');
const SEVERITIES = ['error', 'warning', 'information', 'hint'];

function startService() {
  const child = spawn(process.execPath, [mainJs], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_LOG_LEVEL: 'info',
      PETSTORE_PUBLIC_URL: 'https://api.petstore.dev/v1',
      PETSTORE_STAGING_URL: 'https://staging.petstore.dev/v1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the service did not start in 30 s:\n${out}`));
    }, 30_000);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}:\n${out}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = /"url":"(http:\/\/127\.0\.0\.1:[0-9]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stdout.resume();
        resolve({ url: match[1], stop: () => child.kill('SIGTERM') });
      }
    });
  });
}

/** Spectral's findings on a document file; it exits 1 when it finds errors, with the report on stdout either way. */
async function lint(file) {
  const run = promisify(execFile)(spectral, ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet'], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const { stdout, stderr } = await run.catch((failure) => failure);
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`Spectral gave no report:\n${stdout}\n${stderr}`);
  }
}

const service = await startService();
const dir = await mkdtemp(join(tmpdir(), 'petstore-spectral-'));
let findings;
try {
  const response = await fetch(`${service.url}/v1/openapi.json`);
  if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  const document = await response.json();
  const servers = document.servers?.map((server) => server.url).join(', ');
  if (!document.servers?.every((server) => server.url.startsWith('https://'))) {
    throw new Error(`the document does not list the https public URLs: ${servers}`);
  }
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(document, null, 2));
  findings = await lint(file);
} finally {
  service.stop();
  await rm(dir, { recursive: true, force: true });
}

const counts = new Map();
for (const finding of findings) {
  const key = `${SEVERITIES[finding.severity] ?? finding.severity} ${finding.code}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
const errors = findings.filter((finding) => finding.severity === 0);
for (const finding of errors) console.log(`error ${finding.code} at ${finding.path.join('.')}: ${finding.message}`);
for (const [key, count] of [...counts].sort()) console.log(`${count} × ${key}`);
console.log(`spectral (spectral:oas + OWASP API Security): ${errors.length} errors, ${findings.length - errors.length} other findings`);
process.exit(errors.length === 0 ? 0 : 1);
