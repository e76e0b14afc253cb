// The scenarios of the issue: what is compared with what, on which request, against which target.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cursorAfter } from './cursor.mjs';
import {
  API_KEY,
  startBareInsert,
  startBareList,
  startBarePgliteInsert,
  startEmbedHost,
  startJsonEcho,
  startService,
  startTrpcMemory,
  startWebhookReceiver,
} from './servers.mjs';

/** Every scenario's id, in the order they run. */
export const SCENARIO_IDS = Object.freeze([
  'rest-list-embedded',
  'log-cost',
  'host-tracing-cost',
  'host-log-cost',
  'rest-list-pg-memory',
  'rest-list-pg-postgres',
  'rest-list-redis',
  'trpc-list-pg',
  'big-first-page',
  'big-deep-page',
  'big-every-page',
  'rest-create-pg',
  'rest-create-embedded',
  'rest-create-embedded-pglite',
  'rest-create-webhook-embedded',
  'mixed-embedded',
  'rest-list-304-embedded',
  'rest-patch-embedded',
  'rest-place-order-embedded',
  'rest-patch-pg',
  'rest-place-order-pg',
  'before-list-embedded',
  'before-create-embedded',
  'before-list-pg',
  'before-create-pg',
  'before-patch-pg',
  'before-place-order-pg',
]);

// Measured on 2 cores (see the README's Performance section); printed under the create rows only when they miss.
const EMBEDDED_CREATE_WHY =
  'PGlite runs PostgreSQL inside the service\'s one event loop: the creates of a turn go as one prepared insert, whose WebAssembly and PGlite\'s JavaScript protocol layer are about a third of the service\'s CPU per create; the rest is the HTTP edge (parsing, the 201 with its headers, the writev) and the request log line, as on a list. Going further needs PGlite off the event loop (its own worker thread, so inserts use the second core while HTTP uses the first) or a cheaper HTTP edge; the load generator shares the same two cores.';

export const LIST_PATH = '/v1/pets?limit=20&status=available';
const TRPC_LIST_PATH = `/trpc/pets.list?input=${encodeURIComponent(JSON.stringify({ limit: 20, status: 'available' }))}`;
const AUTH = { authorization: `Bearer ${API_KEY}` };

const listRequest = { path: LIST_PATH, headers: AUTH };
const deepListRequest = (count) => ({ path: `${LIST_PATH}&cursor=${cursorAfter(Math.floor(count * 0.9))}`, headers: AUTH });
// 9,900 different full pages on either table (cursors after ids 0, step, 2·step, … up to 99% of the table), so the
// service's page cache (1 s, 1,024 pages) does not answer.
const cyclingListRequest = (count) => ({ path: LIST_PATH, headers: AUTH, cursorCycle: { count: 9_900, step: count / 10_000 } });
const trpcListRequest = { path: TRPC_LIST_PATH, headers: AUTH };
const createRequest = {
  path: '/v1/pets',
  method: 'POST',
  headers: { ...AUTH, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench pet', categoryId: 7, status: 'available' }),
};

const patchRequest = {
  path: '/v1/pets/{n}',
  method: 'PATCH',
  headers: { ...AUTH, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench pet {n}' }),
};
const orderRequest = { path: '/v1/store/orders', method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"petId":{n}}' };
/** The fresh available animals of the store rows' data (bench/run.mjs seeds them after the 10,000). */
const SALE_FIRST = 10_001;
const SALE_COUNT = 400_000;

/** The first page of the list, as the running service answers it: the bytes the baselines serve. */
async function listBody(server) {
  const response = await fetch(server.url + LIST_PATH, { headers: AUTH });
  if (response.status !== 200) throw new Error(`${server.name} answered ${response.status} to GET ${LIST_PATH}`);
  return Buffer.from(await response.arrayBuffer());
}

/**
 * `spec` with one webhook endpoint subscribed to `pet.created`, registered once it has started (unless its data
 * already has one): deliveries go to the `receiver` spec's server.
 */
function subscribed(spec, receiver) {
  const withEndpoint = (inner) => ({
    ...inner,
    async start(pool) {
      const target = await pool.get(receiver);
      const server = await inner.start(pool);
      const existing = await fetch(`${server.url}/v1/webhooks`, { headers: AUTH });
      if (existing.status !== 200) throw new Error(`${server.name} answered ${existing.status} to GET /v1/webhooks`);
      if ((await existing.json()).length > 0) return server;
      const created = await fetch(`${server.url}/v1/webhooks`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${target.url}/events`, events: ['pet.created'] }),
      });
      if (created.status !== 201) throw new Error(`${server.name} answered ${created.status} to POST /v1/webhooks: ${await created.text()}`);
      return server;
    },
  });
  return { ...withEndpoint(spec), profiled: () => withEndpoint(spec.profiled()) };
}

/**
 * Every scenario in the order they run. `ctx` holds the settings, the scratch databases (`ctx.postgres`) and the
 * embedded data folders (`ctx.embedded`). A process spec `{ key, start(pool) }` is started once per key and shared.
 */
export function defineScenarios(ctx) {
  const { settings, logDir, workDir, postgres, embedded, bigData } = ctx;
  const service = (label, options, scenarioId) => {
    // Under --cpu-prof each scenario gets its own service process, so each profile holds one scenario.
    const key = settings.cpuProf ? `service-${label}-${scenarioId}` : `service-${label}`;
    const start = (name, profile) => () => startService({ name, logDir, main: ctx.serviceMain, profile, ...options });
    // `profiled`: the same service under --cpu-prof, for one extra run when a row misses (see run.mjs).
    return { key, start: start(key, settings.cpuProf), profiled: () => ({ key: `${key}-profiled`, start: start(`${key}-profiled`, true) }) };
  };
  const bareList = (serviceSpec) => ({
    key: `bare-list-for-${serviceSpec.key}`,
    async start(pool) {
      const bodyFile = join(workDir, `list-body-${serviceSpec.key}.json`);
      await writeFile(bodyFile, await listBody(await pool.get(serviceSpec)));
      return startBareList({ name: `bare-list-${serviceSpec.key}`, logDir, bodyFile });
    },
  });
  const trpcMemory = (serviceSpec) => ({
    key: `trpc-memory-for-${serviceSpec.key}`,
    async start(pool) {
      const dataFile = join(workDir, `trpc-data-${serviceSpec.key}.json`);
      await writeFile(dataFile, await listBody(await pool.get(serviceSpec)));
      return startTrpcMemory({ name: `trpc-memory-${serviceSpec.key}`, logDir, dataFile });
    },
  });

  const pg = postgres?.main.url;
  // Measured on 2 cores (see the README's Performance section); printed under a row only when it misses.
  const listFloor =
    'node:http alone, writing this response with its ten headers (rate limits, Link, X-Request-Id), costs 11–12 µs of CPU per request against 9.5–10 µs for the bare server; the request log line adds 3–4 µs and authentication, quota, the page cache, validation, the link and metrics about 10 µs more. 0.5x needs the whole request within about 19–20 µs.';
  const sharedCounters =
    'every request also waits for the shared counters: one round trip counts both of its key\'s windows (one statement on PostgreSQL, one script on Redis) and is shared by the requests of that key that arrive meanwhile, exactly; the replies come back in more, smaller turns, and the driver\'s work adds 9–13 µs of service CPU per request to the memory limiter\'s path.';
  const embeddedList = service('embedded', { dataDir: embedded.small }, 'rest-list-embedded');
  const pgMemory = (id) => service('pg-memory', { databaseUrl: pg, limiter: 'memory' }, id);
  const pgPostgres = service('pg-postgres-limiter', { databaseUrl: pg, limiter: 'postgres' }, 'rest-list-pg-postgres');

  const scenarios = [
    {
      id: 'rest-list-embedded',
      title: 'REST list, embedded DB, memory limiter',
      chartLabel: 'REST list · embedded · memory limiter',
      kind: 'throughput',
      target: { op: '>=', value: 0.5 },
      a: { label: 'bare node:http', spec: bareList(embeddedList) },
      b: { label: 'service', spec: embeddedList },
      request: listRequest,
      compareBodies: true,
      recordPeakRss: true,
      database: 'embedded',
      whyMissed: listFloor,
    },
    {
      id: 'log-cost',
      title: 'Cost of the request log line (REST list, embedded DB): CPU per request, default logging minus logging off',
      chartLabel: 'request log line · µs of CPU per request (lower is better)',
      kind: 'cost',
      target: { op: '<=', value: 5, unit: ' µs' },
      minPairs: 6,
      a: { label: 'service, PETSTORE_LOG_LEVEL=silent', spec: service('embedded-silent', { dataDir: embedded.copy, logLevel: 'silent' }, 'log-cost') },
      b: { label: 'service, default logging', spec: service('embedded-logging', { dataDir: embedded.loggingCopy }, 'log-cost') },
      request: listRequest,
      compareBodies: true,
      database: 'embedded',
      note: 'Both sides are fresh services on copies of the same data; only the log level differs. The row is the median over pairs (at least 6, also in quick runs) of the difference in CPU time per request.',
      whyMissed: 'the line is formatted from one template (about 1 µs alone) and written in 16 KiB pieces; the rest is the same work done at a busier moment, and pairs differ by 1–2 µs from run to run on these machines.',
    },
  ];
  {
    // A host of its own embedding the packages, three ways, each on its copy of the same data.
    const host = (key, dataDir, options) => ({ key, start: () => startEmbedHost({ name: key, logDir, dataDir, ...options }) });
    const withoutTelemetry = host('embed-host-no-telemetry', embedded.hostBare, { telemetry: 'off' });
    const withApi = host('embed-host-otel-api', embedded.hostApi, {});
    const withPino = host('embed-host-pino', embedded.hostPino, { logger: 'pino' });
    scenarios.push(
      {
        id: 'host-tracing-cost',
        title: "Tracing with no OpenTelemetry SDK registered, in a host's node:http server (REST list, embedded DB): req/s against the same handler with tracerProvider: false",
        chartLabel: 'host · OpenTelemetry API, no SDK ÷ no telemetry code',
        kind: 'throughput',
        target: { op: '>=', value: 0.95 },
        a: { label: 'host, tracerProvider: false', spec: withoutTelemetry },
        b: { label: 'host, OpenTelemetry API, no SDK', spec: withApi },
        request: listRequest,
        compareBodies: true,
        database: 'embedded',
        note: 'Both sides are the same host script (bench/baselines/embed-host.mjs) on copies of the same data, without a logger; A passes tracerProvider: false to openPetStore and the handler, so no tracing code runs. The CPU columns show the cost per request.',
        whyMissed: "with no SDK each request still asks the API for three spans (non-recording ones, no context made) in the handler and the store, about 1 µs of CPU; the rest of the gap is the kernel's: this host writes each response at once, and a slower server finds its client asleep more often (the service's own writeAtTurnEnd). The same row with writeAtTurnEnd on both sides measured 0.984x, 29.5 against 28.6 µs of CPU per request (8 pairs). A host that does not trace installs no @opentelemetry/api, and then none of this code runs; the service itself turns tracing off when no SDK was registered before it started.",
      },
      {
        id: 'host-log-cost',
        title: "Cost of the request log line with a host's own pino logger (REST list, embedded DB): CPU per request, logger minus none",
        chartLabel: "host's pino logger · µs of CPU per request (lower is better)",
        kind: 'cost',
        target: { op: '<=', value: 5, unit: ' µs' },
        minPairs: 6,
        a: { label: 'host, no logger', spec: withApi },
        b: { label: 'host, its own pino logger (pino.destination to a file)', spec: withPino },
        request: listRequest,
        compareBodies: true,
        database: 'embedded',
        note: "The host's logger is plain pino(pino.destination({ dest, sync: false, minLength: 12288 })): a checked pino version with default options, so the line takes the template path (requestLine). The row is the median over pairs (at least 6) of the difference in CPU time per request.",
        whyMissed: "the lines of a turn are formatted from one template and handed to sonic-boom in one write when the turn ends; pairs differ by 1–2 µs from run to run on these machines.",
      },
    );
  }
  const onPostgres = [];
  {
    const b = pgMemory('rest-list-pg-memory');
    onPostgres.push({
      id: 'rest-list-pg-memory',
      title: 'REST list, PostgreSQL, memory limiter',
      chartLabel: 'REST list · PostgreSQL · memory limiter',
      kind: 'throughput',
      target: { op: '>=', value: 0.5 },
      a: { label: 'bare node:http', spec: pg && bareList(b) },
      b: { label: 'service', spec: b },
      request: listRequest,
      compareBodies: true,
      whyMissed: listFloor,
    });
  }
  onPostgres.push({
    id: 'rest-list-pg-postgres',
    title: 'REST list, PostgreSQL, postgres limiter (the default with DATABASE_URL)',
    chartLabel: 'REST list · PostgreSQL · postgres limiter',
    kind: 'throughput',
    target: { op: '>=', value: 0.4 },
    a: { label: 'bare node:http', spec: pg && bareList(pgPostgres) },
    b: { label: 'service', spec: pgPostgres },
    request: listRequest,
    compareBodies: true,
    note: 'The postgres limiter is shared and exact: every request updates its counters in PostgreSQL.',
    whyMissed: `${listFloor} With the postgres limiter ${sharedCounters} PostgreSQL shares the two cores with the service and the load generator.`,
  });
  {
    const redisUrl = process.env.REDIS_URL || undefined;
    const b = service('pg-redis-limiter', { databaseUrl: pg, limiter: 'redis', redisUrl }, 'rest-list-redis');
    onPostgres.push({
      id: 'rest-list-redis',
      title: 'REST list, PostgreSQL, shared Redis limiter',
      chartLabel: 'REST list · PostgreSQL · Redis limiter',
      kind: 'throughput',
      target: { op: '>=', value: 0.45 },
      a: { label: 'bare node:http', spec: pg && bareList(b) },
      b: { label: 'service', spec: b },
      request: listRequest,
      compareBodies: true,
      note: 'The counters live in Redis (REDIS_URL), shared and exact across instances, as a fleet runs them.',
      whyMissed: `${listFloor} With the Redis limiter ${sharedCounters}`,
      ...(redisUrl ? {} : { skip: 'REDIS_URL is not set; set it to a Redis server to run this row.' }),
    });
  }
  {
    const b = pgMemory('trpc-list-pg');
    onPostgres.push({
      id: 'trpc-list-pg',
      title: 'tRPC pets.list, PostgreSQL, memory limiter',
      chartLabel: 'tRPC pets.list · PostgreSQL vs tRPC in memory',
      kind: 'throughput',
      target: { op: '>=', value: 2.0 },
      a: { label: 'plain tRPC, memory', spec: pg && trpcMemory(b) },
      b: { label: 'service', spec: b },
      request: trpcListRequest,
      compareBodies: true,
      note: 'The baseline is a plain tRPC standalone server whose procedure checks its input with zod and returns the same animals from memory (no key, no quota, no database).',
    });
  }
  scenarios.push(
    ...onPostgres.map((s) => ({
      ...s,
      database: 'postgres',
      ...(pg ? {} : { skip: 'DATABASE_URL is not set; set it to a PostgreSQL server to run this row.' }),
    })),
  );

  const bigOn = bigData.backend === 'postgres' ? 'PostgreSQL' : 'embedded DB';
  for (const [id, page, short, request, note] of [
    ['big-first-page', 'first page', 'first page', () => listRequest],
    ['big-deep-page', 'page at 90% of the cursor', 'page at 90%', deepListRequest],
    [
      'big-every-page',
      'a different page each request',
      'every request another page',
      cyclingListRequest,
      'Each request asks for the next of 9,900 full pages whose cursors are spread evenly over the table, the same count on both sides, so the service\'s page cache (1 s, 1,024 pages) does not answer.',
    ],
  ]) {
    // Both sides are processes of their own with the same history, started for the big-data rows only.
    const small =
      bigData.backend === 'postgres'
        ? service('pg-small', { databaseUrl: pg, limiter: 'memory' }, id)
        : service('embedded-small', { dataDir: embedded.small }, id);
    const big =
      bigData.backend === 'postgres'
        ? service('pg-big', { databaseUrl: postgres.big?.url, limiter: 'memory' }, id)
        : service('embedded-big', { dataDir: embedded.big }, id);
    scenarios.push({
      id,
      title: `List p50, ${bigData.big.toLocaleString('en-US')} vs ${bigData.small.toLocaleString('en-US')} pets, ${page}, ${bigOn}`,
      chartLabel: `p50, 1M ÷ 10k pets · ${short} (lower is better)`,
      kind: 'latency',
      target: { op: '<=', value: 1.2 },
      a: { label: `${bigData.small.toLocaleString('en-US')} pets`, spec: small },
      b: { label: `${bigData.big.toLocaleString('en-US')} pets`, spec: big },
      request: { a: request(bigData.small), b: request(bigData.big) },
      database: bigData.backend,
      note: [note, bigData.note].filter(Boolean).join(' '),
    });
  }

  {
    // Last: it adds rows to the table the list scenarios read (after their first page, so they would not see them).
    const b = pgMemory('rest-create-pg');
    const s = {
      id: 'rest-create-pg',
      title: 'REST create, PostgreSQL, memory limiter',
      chartLabel: 'REST create · PostgreSQL vs bare insert',
      kind: 'throughput',
      target: { op: '>=', value: 0.8 },
      a: { label: 'bare node:http + pg insert', spec: pg && { key: 'bare-insert', start: () => startBareInsert({ name: 'bare-insert', logDir, databaseUrl: pg }) } },
      b: { label: 'service', spec: b },
      request: createRequest,
      database: 'postgres',
      note:
        'The service uses the memory limiter here so the row compares the insert path; the postgres limiter\'s cost shows in its list row. ' +
        'The baseline inserts the same body into the same table with one INSERT … RETURNING, without key, validation or quota.',
    };
    scenarios.push(pg ? s : { ...s, skip: 'DATABASE_URL is not set; set it to a PostgreSQL server to run this row.' });
  }

  {
    // Creates on the embedded database, as `npm start` runs: one service on its own copy of the seeded folder (its
    // creates must not reach the folder the list and big-data rows read), shared by the three rows below.
    const b = service('embedded-create', { dataDir: embedded.createCopy }, 'rest-create-embedded');
    const whyCreateMissed = EMBEDDED_CREATE_WHY;
    scenarios.push(
      {
        id: 'rest-create-embedded',
        title: 'REST create, embedded DB (the default), against an in-memory JSON echo',
        chartLabel: 'REST create · embedded vs in-memory echo',
        kind: 'throughput',
        target: { op: '>=', value: 0.3, orRps: 10_000, p99Ms: 50 },
        a: { label: 'bare node:http, in-memory echo', spec: { key: 'json-echo', start: () => startJsonEcho({ name: 'json-echo', logDir }) } },
        b: { label: 'service', spec: b },
        request: createRequest,
        database: 'embedded',
        note:
          'Target: at least 0.3x the echo or 10,000 creates/s, with the service\'s p99 at most 50 ms. The echo keeps nothing: it parses the body and answers it with an id from a counter. ' +
          'The service commits every create before answering it (nothing acknowledged is lost on kill -9).',
        whyMissed: whyCreateMissed,
      },
      {
        id: 'rest-create-embedded-pglite',
        title: 'REST create, embedded DB, against bare node:http + PGlite grouped inserts',
        chartLabel: 'REST create · embedded vs bare PGlite insert',
        kind: 'throughput',
        target: { op: '>=', value: 0.8 },
        a: {
          label: 'bare node:http + PGlite grouped insert',
          spec: { key: 'bare-pglite-insert', start: () => startBarePgliteInsert({ name: 'bare-pglite-insert', logDir, dataDir: embedded.baselineCopy }) },
        },
        b: { label: 'service', spec: b },
        request: createRequest,
        database: 'embedded',
        note:
          'The baseline runs PGlite in its own process on a copy of the same data and groups the creates of each event-loop turn into one insert … select from unnest(…) through pglite.query, without key, validation or quota.',
        whyMissed: whyCreateMissed,
      },
      {
        id: 'mixed-embedded',
        title: 'Mixed traffic, embedded DB: 90% list, 10% create; list p99',
        chartLabel: 'list p99 with 10% creates · embedded (ms, lower is better)',
        kind: 'mixed',
        target: { op: '<=', value: 20, unit: ' ms' },
        a: { label: 'the same service, lists only', spec: b },
        b: { label: 'service, 90% list + 10% create', spec: b },
        request: { a: listRequest, b: { ...listRequest, mix: { every: 10, request: createRequest } } },
        database: 'embedded',
        note:
          'Each connection sends nine lists, then a create, and again. Measured: the p99 of the lists among the creates, median over the pairs; the lists-only runs of the same service are shown for comparison. Every create drops the page cache, so lists read the database again after it.',
        whyMissed:
          'every create drops the whole page cache, so after each group of creates the next list of each page queries PGlite again, and PGlite runs its statements on the service\'s one event loop, so lists wait behind the creates\' insert and the HTTP work of the turn; on a machine where other processes keep more than a core busy, the lists-only runs of the same service miss 20 ms too. Going further needs a cache that keeps the pages a create cannot change (a new animal only ever lands on the last page of a listing) and PGlite off the event loop (its own worker thread).',
      },
    );
  }
  // Creates with one endpoint subscribed to pet.created (a receiver on loopback, so the service runs with
  // PETSTORE_WEBHOOKS_ALLOW_PRIVATE=true) against the same creates without one: two services, each on a fresh copy.
  if (embedded.webhookCopy) {
    const receiver = { key: 'webhook-receiver', start: () => startWebhookReceiver({ name: 'webhook-receiver', logDir }) };
    const plain = service('embedded-create-plain', { dataDir: embedded.webhookPlainCopy }, 'rest-create-webhook-embedded');
    const withEndpoint = subscribed(
      service('embedded-create-webhook', { dataDir: embedded.webhookCopy, env: { PETSTORE_WEBHOOKS_ALLOW_PRIVATE: 'true' } }, 'rest-create-webhook-embedded'),
      receiver,
    );
    scenarios.push({
      id: 'rest-create-webhook-embedded',
      title: 'REST create with one subscribed webhook endpoint, embedded DB, against creates without one',
      chartLabel: 'REST create · one webhook endpoint vs none',
      kind: 'throughput',
      target: { op: '>=', value: 0.9 },
      a: { label: 'service, no endpoint', spec: plain },
      b: { label: 'service, one endpoint (a local receiver answering 204)', spec: withEndpoint },
      request: createRequest,
      database: 'embedded',
      // After each run of B, its queued deliveries are sent before the next run starts, so that catching up does not
      // fall into A's run: the receiver's count is read until it has stopped rising for a second.
      async afterRun({ side, pool }) {
        if (side !== 'b') return 'no deliveries';
        const { url } = await pool.get(receiver);
        const started = Date.now();
        const count = async () => Number(await (await fetch(url)).text());
        let last = await count();
        for (let still = 0; still < 4; ) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          const now = await count();
          still = now === last ? still + 1 : 0;
          last = now;
        }
        return `deliveries sent up to ${last} in all, ${((Date.now() - started) / 1000).toFixed(1)} s after the run`;
      },
      note:
        'Each create of B records its pet.created event and delivery in its own transaction (the outbox). Deliveries yield to requests: while creates keep B busy (its event loop over 80% used), its worker takes due deliveries once a second, and sends the rest once the load drops. After each run of B the harness waits until the receiver stops receiving, so that catch-up does not fall into A\'s run; the log shows how long it took.',
    });
  }
  // The store rows' service: its own copy of the data, with fresh available animals after the seeded 10,000.
  const storeService = service('embedded-store', { dataDir: embedded.storeCopy }, 'rest-patch-embedded');
  scenarios.push(
    {
      id: 'rest-list-304-embedded',
      title: 'REST conditional list (If-None-Match, 304), embedded DB, against the served list',
      chartLabel: 'REST 304 list · embedded vs served list',
      kind: 'throughput',
      target: { op: '>=', value: 1.2 },
      a: { label: 'the same service, served list (200)', spec: embeddedList },
      b: { label: 'service, If-None-Match matching (304)', spec: embeddedList },
      // The list's ETag, as the service answers it; its page cache keeps the page (and the tag) while nothing changes.
      async prepare({ b: server, send }) {
        const first = await send(server, listRequest);
        const etag = first.headers.get('etag');
        if (!etag) throw new Error(`${server.name} answered its list without an ETag`);
        return { a: listRequest, b: { ...listRequest, headers: { ...AUTH, 'if-none-match': etag }, expectStatus: 304 } };
      },
      database: 'embedded',
      note: 'Both sides are one service process: the same list, served (200) or revalidated (304, no body, counted against no window).',
    },
    {
      id: 'rest-patch-embedded',
      title: 'REST PATCH of an animal against REST create, embedded DB: CPU per request',
      chartLabel: 'REST PATCH · CPU per request vs create (lower is better)',
      kind: 'cpu',
      target: { op: '<=', value: 1.5 },
      a: { label: 'the same service, creates', spec: storeService },
      b: { label: 'service, PATCH of a different animal each time', spec: storeService },
      request: {
        a: createRequest,
        b: { ...patchRequest, cycle: { from: 1, count: SALE_FIRST - 1 } },
      },
      database: 'embedded',
      note: 'Both sides are one service process; each PATCH renames one of the 10,000 seeded animals in turn and raises its version (no If-Match: the last change wins). The ratio is the service CPU per PATCH over its CPU per create.',
    },
    {
      id: 'rest-place-order-embedded',
      title: 'REST place order of a fresh animal against REST create, embedded DB: CPU per request',
      chartLabel: 'REST place order · CPU per request vs create (lower is better)',
      kind: 'cpu',
      target: { op: '<=', value: 2 },
      a: { label: 'the same service, creates', spec: storeService },
      b: { label: 'service, an order of a fresh available animal each time', spec: storeService },
      request: { a: createRequest, b: { ...orderRequest, cycle: { from: SALE_FIRST, count: SALE_COUNT } } },
      database: 'embedded',
      note: 'Both sides are one service process, on data with 400,000 more available animals: each order takes one never ordered before, so the row measures the sale (the order placed, the animal made pending, in one statement), not the refusal.',
    },
  );
  // The same two rows on PostgreSQL, on a database of their own (see bench/run.mjs), memory limiter.
  const pgStore = service('pg-store', { databaseUrl: postgres?.store?.url, limiter: 'memory' }, 'rest-patch-pg');
  const pgStoreRows = [
    {
      id: 'rest-patch-pg',
      title: 'REST PATCH of an animal against REST create, PostgreSQL: CPU per request',
      chartLabel: 'REST PATCH · PostgreSQL · CPU per request vs create (lower is better)',
      kind: 'cpu',
      target: { op: '<=', value: 1.5 },
      a: { label: 'the same service, creates', spec: pgStore },
      b: { label: 'service, PATCH of a different animal each time', spec: pgStore },
      request: { a: createRequest, b: { ...patchRequest, cycle: { from: 1, count: SALE_FIRST - 1 } } },
      database: 'postgres',
      note: 'As rest-patch-embedded, on PostgreSQL with the memory limiter.',
    },
    {
      id: 'rest-place-order-pg',
      title: 'REST place order of a fresh animal against REST create, PostgreSQL: CPU per request',
      chartLabel: 'REST place order · PostgreSQL · CPU per request vs create (lower is better)',
      kind: 'cpu',
      target: { op: '<=', value: 2 },
      a: { label: 'the same service, creates', spec: pgStore },
      b: { label: 'service, an order of a fresh available animal each time', spec: pgStore },
      request: { a: createRequest, b: { ...orderRequest, cycle: { from: SALE_FIRST, count: SALE_COUNT } } },
      database: 'postgres',
      note: 'As rest-place-order-embedded, on PostgreSQL with the memory limiter.',
    },
  ];
  const noPostgres = 'DATABASE_URL is not set; set it to a PostgreSQL server to run this row.';
  scenarios.push(...pgStoreRows.map((r) => (pg ? r : { ...r, skip: noPostgres })));
  if (ctx.beforeMain) scenarios.push(...beforeRows(ctx, { embeddedList, pgPostgres, pgStore, service }));
  return scenarios;
}

/**
 * With `--before=DIR`: the service of another checkout (A) against this one (B), at the defaults a user runs (the
 * embedded database with the memory limiter; PostgreSQL with the postgres limiter), on lists and creates. Each side
 * has data of its own, made by its own migrations and seeded alike: a release refuses data a newer one migrated.
 */
function beforeRows(ctx, { embeddedList, pgPostgres, pgStore, service }) {
  const { logDir, embedded, postgres } = ctx;
  const pg = postgres?.before?.url;
  const before = (key, options) => ({ key: `before-${key}`, start: () => startService({ name: `before-${key}`, logDir, main: ctx.beforeMain, ...options }) });
  const note = 'A is the service built in the checkout given with --before, B this one; the same request, alternated, at the defaults.';
  const row = (id, title, a, b, request, database) => ({
    id,
    title,
    chartLabel: `${title} · this build vs before`,
    kind: 'throughput',
    target: { op: '>=', value: 0.95 },
    a: { label: 'before', spec: a },
    b: { label: 'this build', spec: b },
    request,
    database,
    note,
  });
  const rows = [
    row('before-list-embedded', 'REST list, embedded DB', before('embedded', { dataDir: embedded.beforeCopy }), embeddedList, listRequest, 'embedded'),
    row(
      'before-create-embedded',
      'REST create, embedded DB',
      before('embedded-create', { dataDir: embedded.beforeCreateCopy }),
      service('embedded-create', { dataDir: embedded.createCopy }, 'before-create-embedded'),
      createRequest,
      'embedded',
    ),
  ];
  const pgRows = [
    row('before-list-pg', 'REST list, PostgreSQL, postgres limiter', pg && before('pg', { databaseUrl: pg, limiter: 'postgres' }), pgPostgres, listRequest, 'postgres'),
    row('before-create-pg', 'REST create, PostgreSQL, postgres limiter', pg && before('pg', { databaseUrl: pg, limiter: 'postgres' }), pgPostgres, createRequest, 'postgres'),
    // The store rows' requests, each side on a store database of its own (fresh available pets after the 10,000).
    // This build's shares its database with rest-place-order-pg, which sells the first 400,000 fresh pets: the orders
    // here take the next 400,000 (bench/run.mjs seeds them on both sides).
    ...[
      ['before-patch-pg', 'REST PATCH, PostgreSQL, memory limiter', { ...patchRequest, cycle: { from: 1, count: SALE_FIRST - 1 } }],
      ['before-place-order-pg', 'REST place order, PostgreSQL, memory limiter', { ...orderRequest, cycle: { from: SALE_FIRST + SALE_COUNT, count: SALE_COUNT } }],
    ].map(([id, title, request]) => {
      const beforeStore = postgres?.beforeStore?.url;
      return row(id, title, beforeStore && before('pg-store', { databaseUrl: beforeStore, limiter: 'memory' }), pgStore, request, 'postgres');
    }),
  ];
  return [...rows, ...pgRows.map((r) => (pg ? r : { ...r, skip: 'DATABASE_URL is not set; set it to a PostgreSQL server to run this row.' }))];
}
