import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { printWebhooks, type WebhookCommand, type WebhookSource } from '@petstore/cli/webhooks';
import { UsageError } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { reachService } from './cli-service.js';
import type { Config } from './config.js';

/**
 * The webhooks as the operator sees them: through the running service's admin channel on the embedded folder, else
 * straight from the database. Only the database is opened, not the store: the tool never runs a delivery worker of
 * its own (it would send deliveries from the operator's shell, and hold what it took for a lease when it exits).
 */
async function openWebhooks(config: Config, io: CliIo): Promise<WebhookSource & { isUnavailable(error: unknown): boolean; close(): Promise<void> }> {
  if (config.dataDirIsFolder) {
    const admin = await reachService(config, io);
    if (admin) return { webhooks: admin.webhooks, keys: admin.keys, isUnavailable: () => false, close: async () => {} };
  }
  if (!config.databaseUrl && !config.dataDirIsFolder) {
    throw new Error('PETSTORE_DATA_DIR=memory:// keeps no webhooks for another process to read: give the data folder of the service, or DATABASE_URL.');
  }
  if (config.dataDirIsFolder && !(await stat(join(config.dataDir, 'PG_VERSION')).then((file) => file.isFile(), () => false))) {
    throw new Error(`${config.dataDir} holds no embedded database yet: start the service on it once, or give the folder it runs on (PETSTORE_DATA_DIR).`);
  }
  const [{ createApiKeyStore, createWebhookAdmin, defaultSchema }, { openDatabase }] = await Promise.all([import('@petstore/core'), import('@petstore/embed')]);
  // On an embedded folder this takes the folder's lock: refused, naming the holder, while another process has it.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    const schema = await defaultSchema(database.db);
    return {
      webhooks: createWebhookAdmin(database.db, { schema }),
      keys: createApiKeyStore(database.db, { schema }),
      isUnavailable: database.isUnavailable,
      close: () => database.close(),
    };
  } catch (error) {
    await database.close();
    throw inWords(error, database.isUnavailable(error));
  }
}

/** A database that cannot be reached, or has no webhook tables yet, said so (never with its password). */
function inWords(error: unknown, unavailable: boolean): unknown {
  if (unavailable) return new Error(`The database cannot be reached (${(error as Error).message}), so nothing was done.`);
  if ((error as { code?: unknown }).code === '42P01') {
    return new Error('This database has no webhook tables yet: start the service on it once (it brings its tables up to date), then try again.');
  }
  return error;
}

/**
 * Runs one `petstore webhooks` command (`@petstore/cli/webhooks` prints it, as `npx @petstore/cli webhooks` does);
 * answers its exit code, or throws a {@link UsageError} for an endpoint or delivery that is not there.
 * @example await runWebhookCommand({ name: 'webhooks list', json: false }, config, io)
 */
export async function runWebhookCommand(command: WebhookCommand, config: Config, io: CliIo): Promise<number> {
  const opened = await openWebhooks(config, io);
  try {
    return await printWebhooks(opened, command, io, (message) => {
      throw new UsageError(message, command.name);
    }).catch((error: unknown) => {
      throw inWords(error, opened.isUnavailable(error));
    });
  } finally {
    await opened.close();
  }
}
