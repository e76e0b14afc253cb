#!/usr/bin/env node
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startServer } from './server.js';
import { version } from './version.js';
import { keepWasmOnBaselineCompiler } from './wasm-compiler.js';

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const logger = createLogger(config.logLevel);
if (!config.databaseUrl) keepWasmOnBaselineCompiler();

try {
  const running = await startServer(config, { createDevelopmentKey: true, logger });
  if (running.developmentKey) {
    process.stdout.write(
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
  const database = config.databaseUrl ? 'PostgreSQL' : `the embedded database (${config.dataDir})`;
  logger.info(
    { url: running.url, version, database, rateLimitStore: config.rateLimitStore, ...(running.metricsUrl ? { metricsUrl: running.metricsUrl } : {}) },
    'Pet Store listening',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'Stopping at once');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'Stopping: finishing in-flight requests');
    running.close().then(
      () => {
        logger.info('Stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'Could not stop cleanly');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} catch (error) {
  logger.fatal({ err: error }, 'Could not start');
  process.exit(1);
}
