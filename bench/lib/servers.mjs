// How each server under test is started: the service itself, and the three baselines.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv, freePort, startProcess } from './processes.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SERVICE_MAIN = join(ROOT, 'apps/server/dist/main.js');
export const PROFILE_DIR = join(ROOT, 'bench/results/profiles');
const BASELINES = join(ROOT, 'bench/baselines');

/** The one key every request carries: enterprise, with limits far beyond anything a run can use. */
export const API_KEY = 'bench-key-0123456789abcdef';
const API_KEYS = `${API_KEY}:enterprise:2000000000:2000000000`;

/**
 * Starts `node apps/server/dist/main.js` as `npm start` does (or `main`, a snapshot of it), on PostgreSQL (`databaseUrl`) or the embedded
 * database (`dataDir`), with the given rate-limit store. `profile` adds `--cpu-prof` into bench/results/profiles; `env`
 * adds settings.
 */
export async function startService({ name, logDir, main = SERVICE_MAIN, databaseUrl, dataDir, limiter, redisUrl, logLevel, profile = false, env: extraEnv = {} }) {
  const port = await freePort();
  const profileFile = profile ? join(PROFILE_DIR, `${name}.cpuprofile`) : undefined;
  const args = profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const env = childEnv({
    PORT: port,
    HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    PETSTORE_DATA_DIR: databaseUrl ? undefined : dataDir,
    PETSTORE_API_KEYS: API_KEYS,
    PETSTORE_RATE_LIMIT_STORE: limiter,
    REDIS_URL: redisUrl,
    // The default, as `npm start` runs: one log line per request (unset = info). `logLevel` only for the log-cost row.
    PETSTORE_LOG_LEVEL: logLevel ?? process.env.BENCH_SERVICE_LOG_LEVEL,
    ...extraEnv,
  });
  const server = await startProcess({
    name,
    args: [...args, main],
    env,
    cwd: ROOT,
    healthUrl: `http://127.0.0.1:${port}/healthz`,
    logFile: join(logDir, `${name}.log`),
  });
  return Object.assign(server, { url: `http://127.0.0.1:${port}`, profileFile });
}

async function startBaseline(name, script, logDir, extraEnv, nodeArgs = []) {
  const port = await freePort();
  const server = await startProcess({
    name,
    args: [...nodeArgs, join(BASELINES, script)],
    env: childEnv({ PORT: port, HOST: '127.0.0.1', ...extraEnv }),
    cwd: ROOT,
    readyLine: 'listening',
    logFile: join(logDir, `${name}.log`),
  });
  return Object.assign(server, { url: `http://127.0.0.1:${port}` });
}

/** The bare node:http server answering with the bytes in `bodyFile`. */
export const startBareList = ({ name, logDir, bodyFile }) => startBaseline(name, 'bare-list.mjs', logDir, { BODY_FILE: bodyFile });

/** The bare node:http + pg server inserting into the `pets` table of `databaseUrl`. */
export const startBareInsert = ({ name, logDir, databaseUrl }) =>
  startBaseline(name, 'bare-insert.mjs', logDir, { DATABASE_URL: databaseUrl });

/** The bare node:http server answering each create from memory (an id from a counter), no database. */
export const startJsonEcho = ({ name, logDir }) => startBaseline(name, 'json-echo.mjs', logDir, {});

/**
 * The bare node:http + PGlite server grouping the creates of each turn into one insert, on its own copy of the
 * embedded data in `dataDir`; on V8's baseline WebAssembly compiler, as the service runs PGlite.
 */
export const startBarePgliteInsert = ({ name, logDir, dataDir }) =>
  startBaseline(name, 'bare-pglite-insert.mjs', logDir, { DATA_DIR: dataDir }, ['--liftoff-only']);

/** The plain tRPC standalone server answering `pets.list` with the animals in `dataFile`. */
export const startTrpcMemory = ({ name, logDir, dataFile }) => startBaseline(name, 'trpc-memory.mjs', logDir, { DATA_FILE: dataFile });

/**
 * A host embedding the packages (`createHttpHandler` on its own node:http server) on its copy of the embedded data:
 * `telemetry: 'off'` passes `tracerProvider: false` (no telemetry code at all), else OpenTelemetry's API with no SDK;
 * `logger: 'pino'` gives it the host's own pino logger, writing to a file in `logDir`.
 */
export const startEmbedHost = ({ name, logDir, dataDir, telemetry = 'api', logger = 'none' }) =>
  startBaseline(name, 'embed-host.mjs', logDir, {
    DATA_DIR: dataDir,
    API_KEY,
    TELEMETRY: telemetry,
    LOGGER: logger,
    LOG_FILE: join(logDir, `${name}-requests.log`),
  });

/** The receiver of the webhook row: answers each delivery 204. */
export const startWebhookReceiver = ({ name, logDir }) => startBaseline(name, 'webhook-receiver.mjs', logDir, {});
