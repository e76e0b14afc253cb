import { ConfigError, loadConfig } from './config.js';
import { absoluteDataDir } from './data-folder.js';
import { createLogger, routeConsole } from './logger.js';
import { startServer, StoppedDuringStart, type RunningServer } from './server.js';
import { version } from './version.js';
import { keepWasmOnBaselineCompiler } from './wasm-compiler.js';

/**
 * Runs the service as `npm start` does, until a signal stops it: reads the configuration, starts the server, prints
 * its lines. `takeSignals` hands it SIGTERM and SIGINT, including any that came while its modules loaded (main.ts).
 * @example await runService((handler) => process.on('SIGTERM', handler))
 */
export async function runService(takeSignals: (handler: (signal: NodeJS.Signals) => void) => void): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }

  const logger = createLogger(config.logLevel);
  routeConsole(logger);
  if (!config.databaseUrl) keepWasmOnBaselineCompiler();

  // Taken before anything opens: a SIGTERM at any moment of start-up ends in the same clean stop as one while serving
  // (exit 0, in-flight requests finished, the embedded quota counts written), never in Node's default exit 143.
  const stopAsked = new AbortController();
  let running: RunningServer | undefined;
  let stopping = false;
  const finish = (server: RunningServer) =>
    server.close().then(
      () => {
        logger.info('Stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Could not stop cleanly');
        process.exit(1);
      },
    );
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'Stopping at once');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, ...(running ? {} : { during: 'start-up' }) }, 'Stopping: finishing in-flight requests');
    stopAsked.abort();
    if (running) void finish(running);
  };
  takeSignals(stop);
  // Asked to stop before anything opened (a signal while the modules loaded): nothing to drain.
  if (stopping) {
    logger.info('Stopped');
    process.exit(0);
  }

  try {
    running = await startServer(config, { createDevelopmentKey: true, logger, signal: stopAsked.signal });
  } catch (error) {
    if (error instanceof StoppedDuringStart) {
      logger.info('Stopped');
      process.exit(0);
    }
    logger.fatal({ err: error }, 'Could not start');
    process.exit(1);
  }
  if (running.developmentKey) {
    // The key itself only on stderr, for the person at the terminal: stdout stays JSON lines for log collectors, with
    // a line that says a key was made, not which.
    logger.info({ plan: 'free', label: 'development' }, 'No API key existed, so a development key was created; it is shown once, on stderr');
    process.stderr.write(
      [
        '',
        'No API key existed, so a development key (free plan) was created. It is shown only this once:',
        '',
        `  ${running.developmentKey}`,
        '',
        `  curl -H "Authorization: Bearer ${running.developmentKey}" ${running.url}/v1/pets`,
        '',
        `Docs: ${running.url}/v1/docs`,
        '',
      ].join('\n'),
    );
  }
  const dataDir = config.databaseUrl ? undefined : absoluteDataDir(config.dataDir);
  logger.info(
    {
      url: running.url,
      version,
      database: dataDir ? `the embedded database (${dataDir})` : 'PostgreSQL',
      ...(dataDir ? { dataDir } : {}),
      rateLimitStore: config.rateLimitStore,
      ...(running.metricsUrl ? { metricsUrl: running.metricsUrl } : {}),
    },
    'Pet Store listening',
  );
  // A stop asked for while the listeners opened: now that there is something to drain, drain it.
  if (stopping) void finish(running);
}
