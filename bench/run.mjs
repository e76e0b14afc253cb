#!/usr/bin/env node
// The Pet Store benchmark: `npm run bench [-- --quick] [-- --cpu-prof]`. See bench/README.md.
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startLoadGenerator } from './lib/drive.mjs';
import { describeMachine, describeRevision } from './lib/machine.mjs';
import { createPool } from './lib/pool.mjs';
import { cpuMicros, machineBusyMicros, rssBytes } from './lib/proc-stats.mjs';
import { writeReports } from './lib/report.mjs';
import { defineScenarios, SCENARIO_IDS } from './lib/scenarios.mjs';
import { createScratchDatabase, isLocal, postgresVersion, seedAvailable, seedAvailablePostgres, seedEmbedded, seedPostgres } from './lib/seed.mjs';
import { PROFILE_DIR, ROOT, startService } from './lib/servers.mjs';
import { snapshotBuild } from './lib/snapshot.mjs';
import { median } from './lib/stats.mjs';

const SMALL = 10_000;
/** Fresh available pets for the place-order row: one per order, more than a full run places. */
const SALE_PETS = 400_000;
const BIG = 1_000_000;
const STARTUP_TARGET_MS = 3_000;
const RSS_TARGET_MB = 250;
// The soak: mixed load on the embedded default, RSS sampled every 5 s; its growth from the first sample to the last.
const SOAK_GROWTH_TARGET_MB = 30;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    pairs: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    out: { type: 'string', default: 'latest' },
    before: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(`node bench/run.mjs [--quick] [--cpu-prof] [--pairs N] [--duration S] [--warmup S] [--connections N]
  [--only id,id] [--keep] [--out NAME (bench/results/NAME.{md,json,svg}, default latest)]
  [--before DIR (another checkout, built: its service against this one, rows before-*)]
PostgreSQL scenarios run when DATABASE_URL is set (scratch databases petstore_bench_* are created and dropped).`);
  process.exit(0);
}

if (!/^[\w.-]+$/.test(args.out)) {
  console.error('--out takes a plain file name such as "latest" or "profiled"');
  process.exit(2);
}

const settings = {
  mode: args.quick ? 'quick' : 'full',
  pairs: Number(args.pairs ?? (args.quick ? 2 : 5)),
  duration: Number(args.duration ?? (args.quick ? 2 : 10)),
  warmup: Number(args.warmup ?? (args.quick ? 1 : 2)),
  connections: Number(args.connections ?? 50),
  latencyConnections: 10,
  latencyDuration: args.quick ? 1 : 5,
  startupRuns: args.quick ? 2 : 5,
  cpuProf: args['cpu-prof'],
  only: args.only?.split(',').map((s) => s.trim()),
};
// Another checkout of the project, built: its service is the A side of the before-* rows (kept out of the report).
const beforeMain = args.before && resolve(args.before, 'apps/server/dist/main.js');
if (beforeMain && !existsSync(beforeMain)) {
  console.error(`--before: ${beforeMain} is missing; build that checkout first (npm ci && npm run build there)`);
  process.exit(2);
}
if (!beforeMain && settings.only?.some((id) => id.startsWith('before-'))) {
  console.error('--only: the before-* rows need --before=DIR, a built checkout to compare with');
  process.exit(2);
}

const unknown = settings.only?.filter((id) => id !== 'startup' && !SCENARIO_IDS.includes(id));
if (unknown?.length) {
  console.error(`--only: no scenario ${unknown.join(', ')}; there are startup, ${SCENARIO_IDS.join(', ')}`);
  process.exit(2);
}
for (const name of ['pairs', 'duration', 'warmup', 'connections']) {
  if (!(Number.isInteger(settings[name]) && settings[name] >= 1)) {
    console.error(`--${name} takes a whole number from 1`);
    process.exit(2);
  }
}

const log = (message) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${message}\n`);
const t0 = performance.now();
const databaseUrl = process.env.DATABASE_URL || undefined;
const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
const logDir = join(workDir, 'logs');
await mkdir(logDir, { recursive: true });
if (settings.cpuProf) await mkdir(PROFILE_DIR, { recursive: true });
const pool = createPool();
const scratch = [];
let loadGenerator;
let snapshot;
let failed = false;

async function cleanUp() {
  await pool.stopAll().catch((error) => log(`stopping servers: ${error.message}`));
  await loadGenerator?.close();
  await snapshot?.remove();
  for (const db of scratch) await db.drop().catch((error) => log(`dropping ${db.name}: ${error.message}`));
  if (!args.keep && !failed) await rm(workDir, { recursive: true, force: true });
  else log(`logs and data kept in ${workDir}`);
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    failed = true;
    cleanUp().finally(() => process.exit(130));
  });
}

/** Times `npm start` (node apps/server/dist/main.js) on a fresh embedded data folder to the first 200 from /healthz. */
async function measureStartup() {
  const runs = [];
  const dirs = [];
  const otherCores = [];
  for (let i = 0; i < settings.startupRuns; i++) {
    const dataDir = join(workDir, `embedded-${i}`);
    const start = () => startService({ name: `startup-${i}`, logDir, main: snapshot.main, dataDir });
    const before = { machine: machineBusyMicros(), harness: process.cpuUsage(), at: performance.now() };
    const server = await start().catch(async (error) => {
      // Something outside the run stopped it (seen on a shared machine): measure this start again on a fresh folder.
      log(`start-up ${i + 1}: ${error.message.split('\n')[0]}; measuring it again`);
      await rm(dataDir, { recursive: true, force: true });
      return start();
    });
    // Cores that other processes kept busy meanwhile: start-up is as sensitive to a busy machine as any run.
    const harness = process.cpuUsage(before.harness);
    const others = machineBusyMicros() - before.machine - cpuMicros(server.pid) - harness.user - harness.system;
    otherCores.push(others / 1e3 / (performance.now() - before.at));
    await server.stop();
    runs.push(server.startMs);
    dirs.push(dataDir);
    log(`start-up ${i + 1}/${settings.startupRuns}: ${Math.round(server.startMs)} ms (other load ${Math.max(0, otherCores.at(-1)).toFixed(2)} cores)`);
  }
  return { runs, dirs, otherCores };
}

/**
 * Creates a scratch database, lets the service of `main` migrate it (by starting once), then seeds `count` animals.
 * The --before rows' service gets a database of its own: a release refuses a database that a newer one migrated.
 */
async function preparePostgres(label, count, main = snapshot.main, available = 0) {
  const db = await createScratchDatabase(databaseUrl, label);
  scratch.push(db);
  const server = await startService({ name: `migrate-${label}`, logDir, main, databaseUrl: db.url });
  await server.stop();
  const started = performance.now();
  await seedPostgres(db.url, count);
  if (available > 0) await seedAvailablePostgres(db.url, available);
  log(`${db.name}: ${(count + available).toLocaleString('en-US')} pets seeded in ${Math.round(performance.now() - started)} ms`);
  return db;
}

function summarize(runs) {
  const pick = (name) => median(runs.map((r) => r[name]));
  return {
    rps: pick('rps'),
    p50Ms: pick('p50Ms'),
    p99Ms: pick('p99Ms'),
    cpuUsPerRequest: pick('cpuUsPerRequest'),
    ...(runs[0]?.dbCpuUsPerRequest !== undefined ? { dbCpuUsPerRequest: pick('dbCpuUsPerRequest') } : {}),
    bytesPerResponse: pick('bytesPerResponse'),
    completed: runs.reduce((sum, r) => sum + r.completed, 0),
    non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
    errors: runs.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
    otherCores: median(runs.map((r) => r.cores.other)),
    systemShare: median(runs.map((r) => r.systemShare)),
  };
}

async function send(server, request) {
  // A numbered request is checked with the last number of its cycle, which its runs reach last, if ever.
  const n = request.cycle && String(request.cycle.from + request.cycle.count - 1);
  const path = n ? request.path.replace('{n}', n) : request.path;
  const body = n ? request.body?.replace('{n}', n) : request.body;
  const response = await fetch(server.url + path, { method: request.method ?? 'GET', headers: request.headers, body });
  return { status: response.status, body: Buffer.from(await response.arrayBuffer()), headers: response.headers };
}

/** Runs one scenario: checks both sides answer, warms them, then alternates A B, B A, A B … */
async function runScenario(scenario, ctx) {
  const a = await pool.get(scenario.a.spec);
  const b = await pool.get(scenario.b.spec);
  // A request made from what a running server answers first (a conditional GET needs the list's ETag).
  if (scenario.prepare) scenario.request = await scenario.prepare({ a, b, send });
  const requestOf = (side) => scenario.request[side] ?? scenario.request;
  const latency = scenario.kind === 'latency';
  const load = {
    duration: latency ? settings.latencyDuration : settings.duration,
    connections: latency ? settings.latencyConnections : settings.connections,
    measureDatabase: ctx.measureDatabase && scenario.database === 'postgres',
  };

  const [first, second] = [await send(a, requestOf('a')), await send(b, requestOf('b'))];
  for (const [side, answer] of [['baseline', first], ['service', second]]) {
    const expected = requestOf(side === 'baseline' ? 'a' : 'b').expectStatus;
    const ok = expected === undefined ? answer.status >= 200 && answer.status <= 299 : answer.status === expected;
    if (!ok) throw new Error(`the ${side} answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`);
  }
  const notes = [];
  if (scenario.compareBodies) {
    notes.push(first.body.equals(second.body) ? `Response bodies byte-identical (${second.body.length} bytes).` : `Response bodies differ (${first.body.length} vs ${second.body.length} bytes).`);
  }

  // Warm each server once per kind of request (method and path without query), not once per scenario.
  for (const [server, side] of [[a, 'a'], [b, 'b']]) {
    const request = requestOf(side);
    const kind = `${request.method ?? 'GET'} ${request.path.split('?')[0]}`;
    if (server.warmed.has(kind)) continue;
    server.warmed.add(kind);
    await loadGenerator.drive(server, request, { ...load, duration: settings.warmup, measureDatabase: false });
  }

  const pairs = [];
  // A difference of a few µs (the log-cost row) needs more pairs than a ratio to rise above the noise.
  const pairCount = Math.max(settings.pairs, scenario.minPairs ?? 0);
  // Counterbalanced: A B, then B A, and so on. What one side leaves behind (a database both write to still busy with
  // the last run's rows) then weighs on each side alike; always A first made an A/A run on PostgreSQL read 0.93x.
  const drive = async (server, side) => {
    const result = await loadGenerator.drive(server, requestOf(side), load);
    server.windows.push(result.window);
    // Work a run leaves queued in its server (the webhook row's deliveries) is done before the next run starts.
    if (scenario.afterRun) log(`  ${side}: ${await scenario.afterRun({ server, side, pool })}`);
    return result;
  };
  for (let i = 0; i < pairCount; i++) {
    let ra, rb;
    if (i % 2 === 0) {
      ra = await drive(a, 'a');
      rb = await drive(b, 'b');
    } else {
      rb = await drive(b, 'b');
      ra = await drive(a, 'a');
    }
    const ratio =
      scenario.kind === 'cost'
        ? rb.cpuUsPerRequest - ra.cpuUsPerRequest
        : scenario.kind === 'mixed'
          ? rb.byKind.main.p99Ms
          : scenario.kind === 'cpu'
            ? rb.cpuUsPerRequest / ra.cpuUsPerRequest
            : latency
            ? rb.p50Ms / ra.p50Ms
            : rb.rps / ra.rps;
    pairs.push({ a: ra, b: rb, ratio });
    log(`  pair ${i + 1}: ${scenario.a.label} ${Math.round(ra.rps)} req/s p50 ${ra.p50Ms?.toFixed(2)} ms ${ra.cpuUsPerRequest?.toFixed(1)} µs CPU · ${scenario.b.label} ${Math.round(rb.rps)} req/s p50 ${rb.p50Ms?.toFixed(2)} ms ${rb.cpuUsPerRequest?.toFixed(1)} µs CPU · ${scenario.kind === 'cost' ? 'difference' : 'ratio'} ${ratio.toFixed(3)}`);
  }
  const measured = median(pairs.map((p) => p.ratio));
  const summaryA = summarize(pairs.map((p) => p.a));
  const summaryB = summarize(pairs.map((p) => p.b));
  const { target } = scenario;
  const met =
    (target.op === '>=' ? measured >= target.value || (target.orRps !== undefined && summaryB.rps >= target.orRps) : measured <= target.value) &&
    (target.p99Ms === undefined || summaryB.p99Ms <= target.p99Ms);
  if (target.p99Ms !== undefined) notes.push(`Service p99 ${summaryB.p99Ms.toFixed(1)} ms (target ≤ ${target.p99Ms} ms), ${Math.round(summaryB.rps).toLocaleString('en-US')} creates/s.`);
  if (scenario.kind === 'mixed') {
    const p99s = (kind) => pairs.map((p) => p.b.byKind[kind].p99Ms.toFixed(1)).join(', ');
    notes.push(
      `Per pair, p99 of the lists among the creates: ${p99s('main')} ms; of the creates: ${p99s('mixed')} ms; of the lists alone (A): ${pairs.map((p) => p.a.p99Ms.toFixed(1)).join(', ')} ms.`,
    );
  }
  const bad = summaryA.non2xx + summaryA.errors + summaryB.non2xx + summaryB.errors;
  if (bad) notes.push(`${bad} responses were not 2xx or failed: the numbers are not valid.`);
  if (scenario.database === 'postgres' && summaryB.dbCpuUsPerRequest !== undefined && summaryB.dbCpuUsPerRequest < 2) {
    notes.push(`PostgreSQL spent ${summaryB.dbCpuUsPerRequest.toFixed(1)} µs per service request: the service answered from memory (its page cache) without querying it, so this row does not exercise the database.`);
  }
  return {
    measured,
    status: bad ? 'failed' : met ? 'met' : 'missed',
    a: { label: scenario.a.label, server: a.name, summary: summaryA },
    b: { label: scenario.b.label, server: b.name, summary: summaryB },
    pairs,
    note: [...notes, scenario.note, !bad && !met ? missedNote(scenario) : undefined].filter(Boolean).join(' '),
    peakRssMB: scenario.recordPeakRss ? b.peakRss() / 2 ** 20 : undefined,
    restartMs: b.startMs,
  };
}

/**
 * One extra run of a missed row's service under `--cpu-prof`, not counted in its numbers: the service is started
 * again (an embedded data folder is one process's, so the measured one stops first), warmed, driven once, stopped,
 * and its profile summarised for the report.
 */
async function profileOf(scenario) {
  await pool.stop(scenario.b.spec.key);
  const spec = scenario.b.spec.profiled();
  const server = await pool.get(spec);
  const request = scenario.request.b ?? scenario.request;
  const load = { duration: settings.duration, connections: settings.connections, measureDatabase: false };
  await loadGenerator.drive(server, request, { ...load, duration: settings.warmup });
  const run = await loadGenerator.drive(server, request, load);
  server.windows.push(run.window);
  const record = await pool.stop(spec.key);
  log(`${scenario.id}: profiled one more run (${Math.round(run.rps)} req/s under --cpu-prof)`);
  return record?.profile;
}

/** Why a row missed its target, and where its profile is, from what the scenario knows of itself. */
function missedNote(scenario) {
  const profile = settings.cpuProf
    ? 'The CPU profile of this run is summarised under "Where the time goes" below.'
    : 'The profile of one more run of the service under `--cpu-prof` (not counted in the numbers) is under "Profiles of the rows that missed" below.';
  return [scenario.whyMissed && `Why it misses: ${scenario.whyMissed}`, profile].filter(Boolean).join(' ');
}

/** How a data folder is copied for another process: without the admin channel's folder (its socket cannot be copied). */
const DATA_COPY = { recursive: true, filter: (source) => !/[\\/]petstore\.admin([\\/]|$)/.test(source) };

const results = [];
let pgVersion;
let revision;
try {
  const machine = describeMachine();
  if (!existsSync(join(ROOT, 'apps/server/dist/main.js'))) throw new Error('apps/server/dist is missing: run `npm run build` first (npm run bench does)');
  revision = describeRevision(ROOT);
  snapshot = await snapshotBuild(ROOT);
  log(`${settings.mode} run on ${machine.cpu} (${machine.cores} cores), Node ${machine.node}; work dir ${workDir}`);
  if (databaseUrl) pgVersion = `${await postgresVersion(databaseUrl)}${isLocal(databaseUrl) ? ' (local)' : ''}`;
  else log('DATABASE_URL is not set: the PostgreSQL scenarios are skipped');

  const wanted = (...ids) => !settings.only || ids.some((id) => settings.only.includes(id));
  const bigOnPostgres = Boolean(databaseUrl);
  // Without --only the start-up runs are measured; with --only they still make the fresh embedded data folders.
  settings.startupRuns = Math.max(wanted('startup') ? settings.startupRuns : 1, bigOnPostgres || !wanted('big-first-page', 'big-deep-page') ? 1 : 2);

  // Start-up first, while nothing else runs; its fresh data folders become the embedded databases.
  const startup = await measureStartup();
  const embedded = { small: startup.dirs[0], big: bigOnPostgres ? undefined : startup.dirs[1] };
  const bigDataWanted = wanted('big-first-page', 'big-deep-page');
  if (!bigDataWanted) embedded.big = undefined;
  const seedingEmbedded = (async () => {
    await seedEmbedded(embedded.small, SMALL);
    // The log-cost row runs two services of its own on the same data (fresh, so neither carries the history of the
    // rows before); a data folder is one process's, so each gets a copy.
    if (wanted('log-cost')) {
      embedded.copy = `${embedded.small}-copy`;
      embedded.loggingCopy = `${embedded.small}-logging`;
      await cp(embedded.small, embedded.copy, DATA_COPY);
      await cp(embedded.small, embedded.loggingCopy, DATA_COPY);
    }
    // The host rows run three hosts of their own (no telemetry, the OpenTelemetry API, a pino logger): a copy each.
    if (wanted('host-tracing-cost', 'host-log-cost')) {
      for (const [name, suffix] of [['hostBare', 'host-bare'], ['hostApi', 'host-api'], ['hostPino', 'host-pino']]) {
        embedded[name] = `${embedded.small}-${suffix}`;
        await cp(embedded.small, embedded[name], DATA_COPY);
      }
    }
    // The create rows' service and the bare PGlite baseline each get a copy: creates must not reach the folder the
    // list and big-data rows read (10,000 pets), and a data folder is one process's.
    if (wanted('rest-create-embedded', 'rest-create-embedded-pglite', 'mixed-embedded', 'before-create-embedded')) {
      embedded.createCopy = `${embedded.small}-create`;
      embedded.baselineCopy = `${embedded.small}-bare-pglite`;
      await cp(embedded.small, embedded.createCopy, DATA_COPY);
      await cp(embedded.small, embedded.baselineCopy, DATA_COPY);
    }
    // The webhook row runs two services of its own, with and without an endpoint: a fresh copy each.
    if (wanted('rest-create-webhook-embedded')) {
      embedded.webhookCopy = `${embedded.small}-webhook`;
      embedded.webhookPlainCopy = `${embedded.small}-webhook-plain`;
      await cp(embedded.small, embedded.webhookCopy, DATA_COPY);
      await cp(embedded.small, embedded.webhookPlainCopy, DATA_COPY);
    }
    // The store rows (orders, PATCH) run on a copy of their own, with fresh available pets for the orders to take.
    if (wanted('rest-place-order-embedded', 'rest-patch-embedded')) {
      embedded.storeCopy = `${embedded.small}-store`;
      await cp(embedded.small, embedded.storeCopy, DATA_COPY);
      await seedAvailable(embedded.storeCopy, SALE_PETS);
    }
    // The before-* rows run the other checkout's service on folders its own migrations made (a release refuses a
    // folder a newer one migrated), seeded alike; one for lists and a copy for creates (a folder is one process's).
    if (beforeMain && wanted('before-list-embedded', 'before-create-embedded')) {
      embedded.beforeCopy = join(workDir, 'embedded-before');
      embedded.beforeCreateCopy = `${embedded.beforeCopy}-create`;
      const server = await startService({ name: 'migrate-before', logDir, main: beforeMain, dataDir: embedded.beforeCopy });
      await server.stop();
      await seedEmbedded(embedded.beforeCopy, SMALL);
      await cp(embedded.beforeCopy, embedded.beforeCreateCopy, DATA_COPY);
    }
    if (embedded.big) {
      const started = performance.now();
      await seedEmbedded(embedded.big, BIG);
      log(`embedded: ${BIG.toLocaleString('en-US')} pets seeded in ${Math.round(performance.now() - started)} ms`);
    }
    for (const dir of startup.dirs.slice(2)) await rm(dir, { recursive: true, force: true });
  })();
  // Set-up work runs side by side; nothing is measured until it is all done.
  const [postgres] = await Promise.all([
    databaseUrl &&
      Promise.all([
        preparePostgres('main', SMALL),
        bigDataWanted && preparePostgres('big', BIG),
        beforeMain && wanted('before-list-pg', 'before-create-pg') && preparePostgres('before', SMALL, beforeMain),
        // The store rows (PATCH, orders) change and sell animals: a database of their own for each side, with fresh
        // available pets for the orders to take, so the list rows' bytes stay the same. Twice as many: this build's
        // is shared by rest-place-order-pg (the first 400,000) and before-place-order-pg (the next).
        wanted('rest-patch-pg', 'rest-place-order-pg', 'before-patch-pg', 'before-place-order-pg') && preparePostgres('store', SMALL, snapshot.main, 2 * SALE_PETS),
        beforeMain && wanted('before-patch-pg', 'before-place-order-pg') && preparePostgres('before_store', SMALL, beforeMain, 2 * SALE_PETS),
      ]).then(([main, big, before, store, beforeStore]) => ({ main, big, before, store, beforeStore })),
    seedingEmbedded,
    startLoadGenerator().then((generator) => (loadGenerator = generator)),
  ]);
  const bigData = {
    backend: bigOnPostgres ? 'postgres' : 'embedded',
    small: SMALL,
    big: BIG,
    note: bigOnPostgres
      ? 'Run on PostgreSQL (seeded with generate_series); the embedded database runs it when DATABASE_URL is unset.'
      : 'Run on the embedded database because DATABASE_URL is unset.',
  };
  const ctx = {
    settings,
    logDir,
    workDir,
    serviceMain: snapshot.main,
    beforeMain,
    postgres,
    embedded,
    bigData,
    measureDatabase: Boolean(databaseUrl && isLocal(databaseUrl)),
  };
  const scenarios = defineScenarios(ctx).filter((s) => wanted(s.id));
  const runnable = (s) => !s.skip;

  const soakSeconds = settings.mode === 'quick' ? 10 : 30;
  let soakRow;
  /** 60 s (quick: 15 s) of lists and creates in turns of 5 s at 50 connections after a warm-up, RSS read after each turn. */
  async function soak(service, listRequest) {
    const createRequest = {
      path: '/v1/pets',
      method: 'POST',
      headers: { ...listRequest.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Soak pet', categoryId: 3 }),
    };
    const turns = settings.mode === 'quick' ? 3 : 12;
    // Warm-up first: V8 sizes its heap, PGlite compiles the WebAssembly of each new code path on first use and fills
    // its buffers; RSS climbs for the first 20–30 s of creates and then stays level (measured over 120 s: 178 MB,
    // about 210 MB from the sixth turn on). Growth after that is what a leak would show.
    const warmupTurns = settings.mode === 'quick' ? 2 : 4;
    for (let i = 0; i < warmupTurns; i++) {
      await loadGenerator.drive(service, i % 2 ? createRequest : listRequest, { duration: 5, connections: 50, measureDatabase: false });
    }
    const samples = [];
    let completed = 0;
    for (let i = 0; i < turns; i++) {
      const run = await loadGenerator.drive(service, i % 2 ? createRequest : listRequest, { duration: 5, connections: 50, measureDatabase: false });
      completed += run.completed;
      samples.push(rssBytes(service.pid) / 2 ** 20);
    }
    const growth = samples.at(-1) - samples[0];
    log(`soak: RSS ${samples.map((mb) => mb.toFixed(0)).join(' → ')} MB over ${turns * 5} s, ${completed} requests`);
    return {
      id: 'soak',
      title: `RSS growth over a ${turns * 5} s soak of lists and creates (embedded DB, 50 connections), after ${warmupTurns * 5} s of warm-up, sampled every 5 s`,
      kind: 'memory',
      target: { op: '<=', value: SOAK_GROWTH_TARGET_MB, unit: ' MB' },
      measured: growth,
      status: growth <= SOAK_GROWTH_TARGET_MB ? 'met' : 'missed',
      note: `RSS after each 5 s turn (MB): ${samples.map((mb) => mb.toFixed(1)).join(', ')}; ${completed} requests in all.`,
    };
  }
  const rssRow = {
    id: 'peak-rss',
    title: `Peak RSS of the service, embedded DB, after the first scenario and ${soakSeconds} s at 200 connections`,
    kind: 'memory',
    target: { op: '<=', value: RSS_TARGET_MB, unit: ' MB' },
  };
  for (const [i, scenario] of scenarios.entries()) {
    const row = { id: scenario.id, title: scenario.title, chartLabel: scenario.chartLabel, kind: scenario.kind, target: scenario.target };
    if (scenario.skip) {
      Object.assign(row, { status: 'skipped', reason: scenario.skip, a: { label: scenario.a.label } });
      log(`${scenario.id}: skipped (${scenario.skip})`);
    } else {
      log(`${scenario.id}: ${scenario.title}`);
      try {
        const result = await runScenario(scenario, ctx).catch((error) => {
          if (error.name !== 'ServerExited') throw error;
          log(`${scenario.id}: ${error.message}; running the scenario again with a fresh server`);
          return runScenario(scenario, ctx).then((retried) => ({ ...retried, note: `${retried.note} Run twice: ${error.message}.` }));
        });
        Object.assign(row, result);
        if (result.peakRssMB !== undefined) {
          // The memory row: the same service, then 200 connections at once for the soak, then its peak.
          const service = await pool.get(scenario.b.spec);
          await loadGenerator.drive(service, scenario.request, { duration: soakSeconds, connections: 200, measureDatabase: false });
          const peak = service.peakRss() / 2 ** 20;
          soakRow = await soak(service, scenario.request);
          Object.assign(rssRow, {
            measured: peak,
            status: peak <= RSS_TARGET_MB ? 'met' : 'missed',
            note: `VmHWM (the process's peak since it started, start-up included) of ${result.b.server}, read after the scenario's runs and ${soakSeconds} s of 200 connections.`,
          });
        }
        if (row.status === 'missed' && !settings.cpuProf && scenario.b.spec?.profiled) {
          row.profile = await profileOf(scenario).catch((error) => log(`${scenario.id}: no profile: ${error.message}`));
        }
        if (scenario.id === 'rest-list-embedded') startup.restartMs = result.restartMs;
        log(`${scenario.id}: ${row.measured.toFixed(3)}x (${row.status})`);
      } catch (error) {
        Object.assign(row, { status: 'failed', reason: error.message.split('\n')[0] });
        log(`${scenario.id}: failed: ${error.stack}`);
        failed = true;
      }
      delete row.restartMs;
      delete row.peakRssMB;
    }
    results.push(row);
    const needed = new Set(scenarios.slice(i + 1).filter(runnable).flatMap((s) => [s.a.spec.key, s.b.spec.key]));
    await pool.stopExcept(needed);
  }

  if (soakRow) results.push(soakRow);
  const startupMs = median(startup.runs);
  if (wanted('startup')) results.push({
    id: 'startup',
    title: '`npm start` to 200 from /healthz, embedded DB, fresh data folder',
    kind: 'startup',
    target: { op: '<=', value: STARTUP_TARGET_MS / 1000, unit: ' s' },
    measured: startupMs,
    runsMs: startup.runs.map(Math.round),
    otherCores: startup.otherCores.map((c) => Math.round(Math.max(0, c) * 100) / 100),
    status: startupMs <= STARTUP_TARGET_MS ? 'met' : 'missed',
    note:
      `Median of ${startup.runs.length} starts (${startup.runs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s, while other processes and kernel threads kept ` +
      `${startup.otherCores.map((c) => Math.max(0, c).toFixed(2)).join(', ')} cores busy), node apps/server/dist/main.js as npm start runs it, /healthz polled every 20 ms.` +
      (startup.restartMs ? ` A restart on an existing data folder with ${SMALL.toLocaleString('en-US')} pets took ${(startup.restartMs / 1000).toFixed(2)} s.` : ''),
  });
  if (rssRow.status) results.push(rssRow);
  await pool.stopAll();

  const runsOf = (name) =>
    results.flatMap((r) => (r.pairs ?? []).flatMap((p) => [r.a.server === name && p.a, r.b.server === name && p.b].filter(Boolean)));
  const profiles = pool.stopped
    .filter((s) => s.profile && !s.key.endsWith('-profiled'))
    .map((s) => {
      const runs = runsOf(s.name);
      const cpuMs = runs.reduce((sum, r) => sum + (r.cpuUsPerRequest * r.completed) / 1000, 0);
      const systemMs = runs.reduce((sum, r) => sum + (r.systemShare * r.cpuUsPerRequest * r.completed) / 1000, 0);
      return {
        ...s.profile,
        server: s.key,
        scenarios: results.filter((r) => r.b?.server === s.name || r.a?.server === s.name).map((r) => r.id),
        measuredCpuMs: Math.round(cpuMs),
        measuredSystemShare: cpuMs ? Math.round((systemMs / cpuMs) * 100) / 100 : undefined,
      };
    });
  const run = {
    finishedAt: new Date().toISOString(),
    revision,
    builtAt: snapshot.builtAt,
    elapsedS: (performance.now() - t0) / 1000,
    settings,
    machine: { ...machine, loadAverageAtEnd: describeMachine().loadAverage },
    postgres: pgVersion,
    scenarios: results,
    servers: pool.stopped.map(({ profile, ...s }) => s),
    profiles,
  };
  const markdown = await writeReports(join(ROOT, 'bench/results'), args.out, run);
  console.log(markdown);
  log(`reports written to bench/results/${args.out}.{md,json,svg}`);
} catch (error) {
  failed = true;
  log(`run failed: ${error.stack}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
