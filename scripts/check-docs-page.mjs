#!/usr/bin/env node
// Loads the docs page of a real service in headless Chromium and fails unless it renders every operation, with no
// request leaving 127.0.0.1, no script error and no Content-Security-Policy violation.
// Needs a build (npm run build) and Chromium (apt-get install -y chromium; CHROMIUM=/path to use another).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const OPERATIONS = ['List animals', 'Add an animal', 'Get an animal (deprecated)'];
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const mainJs = new URL('../apps/server/dist/main.js', import.meta.url);

function startService() {
  const child = spawn(process.execPath, [mainJs.pathname], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', PETSTORE_DATA_DIR: 'memory://', PETSTORE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the service did not start in 30 s:\n${out}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}:\n${out}`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      const match = /"url":"(http:\/\/127\.0\.0\.1:[0-9]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ url: match[1], stop: () => child.kill('SIGTERM') });
      }
    });
  });
}

const problems = [];
const service = await startService();
const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
  // Every request the page makes goes through here: only 127.0.0.1 is let through, anything else is refused and reported.
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') return route.continue();
    problems.push(`request left 127.0.0.1: ${url.href}`);
    return route.abort('blockedbyclient');
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const loaded = [];
  page.on('request', (request) => loaded.push(request.url()));
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  const response = await page.goto(`${service.url}/v1/docs`, { waitUntil: 'load', timeout: 30_000 });
  if (response?.status() !== 200) problems.push(`GET /v1/docs ended with ${response?.status()} at ${page.url()}`);
  try {
    await page.waitForFunction(
      (texts) => texts.every((text) => document.body.textContent.includes(text)),
      OPERATIONS,
      { timeout: 30_000 },
    );
  } catch {
    const text = await page.evaluate(() => document.body.textContent.slice(0, 500));
    problems.push(`the page did not render the operations ${OPERATIONS.join(', ')}; it shows:\n${text}`);
  }
  if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
  await page.waitForTimeout(500);
  console.log(`docs page: ${loaded.length} requests: ${[...new Set(loaded.map((u) => u.replace(/^(https?:\/\/[^/]+\/[^?]*).*$/, '$1')))].join(' ')}`);
} finally {
  await context?.close();
  service.stop();
  await rm(profile, { recursive: true, force: true });
}
if (problems.length) {
  console.error(`docs page check failed:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`docs page check: rendered ${OPERATIONS.length} operations offline`);
