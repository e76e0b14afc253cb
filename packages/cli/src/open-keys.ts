import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createApiKeyStore, createWebhookAdmin, readUsage, type ApiKeyStore, type Database, type UsageQuery, type UsageRow, type WebhookAdmin } from '@petstore/core';
import { openDatabase, unreachableDatabase } from '@petstore/drivers';
import type { Kysely } from 'kysely';
import { connectAdminChannel } from './admin-channel-client.js';
import type { Target } from './parse-command.js';

/** The keys of the target, and how to let go of them. */
export interface OpenKeys {
  keys: ApiKeyStore;
  /** The usage ledger's rows: as written so far on the database; the service's own answer through its channel. */
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /** The webhooks as the operator sees them: every owner's endpoints and deliveries, no secret. */
  webhooks: WebhookAdmin;
  /** How the tool reached them: the database itself, or a running service's admin channel. */
  through: 'database' | 'admin channel';
  close(): Promise<void>;
}

/** The store's tables must be there already: the tool never migrates a host's database behind its back. */
async function expectTables(db: Kysely<Database>, schema: string | undefined) {
  try {
    await (schema ? db.withSchema(schema) : db).selectFrom('api_keys').select('id').limit(1).execute();
  } catch (error) {
    if ((error as { code?: unknown }).code !== '42P01') throw error;
    const where = schema ? `schema ${schema}` : 'the current schema';
    throw new Error(`The store's tables are not in ${where} of this database: open the store there once (openPetStore), or run its migrations, first.`);
  }
}

/** A data folder the tool may open: one that holds a database already (opening an empty one would make a new one). */
async function expectDatabaseIn(dataDir: string) {
  const found = await stat(join(dataDir, 'PG_VERSION')).then(
    (file) => file.isFile(),
    () => false,
  );
  if (!found) throw new Error(`${dataDir} holds no embedded database: give the data folder the store opens (openPetStore's dataDir).`);
}

/**
 * Opens the keys of the target: on PostgreSQL with one connection; on an embedded data folder through the admin
 * channel of a Pet Store service running on it, else directly under the folder's lock (refused, naming the process,
 * while another process holds it).
 * @example const { keys, close } = await openKeys({ dataDir: './.petstore-data', runtimeDir: undefined, schema: undefined }, process.stderr)
 */
export async function openKeys(target: Target, err: { write(text: string): unknown }): Promise<OpenKeys> {
  if (target.dataDir !== undefined) {
    await expectDatabaseIn(target.dataDir);
    const admin = await connectAdminChannel(target.dataDir, {
      runtimeDir: target.runtimeDir,
      onIgnored: (place, reason) => err.write(`Not using the admin channel in ${place.folder}: ${reason}.\n`),
    });
    if (admin) {
      return { keys: admin.keys, usage: (query) => admin.keys.usage(query), webhooks: admin.webhooks, through: 'admin channel', close: async () => {} };
    }
  }
  const database = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolSize: 1 });
  try {
    await expectTables(database.db, target.schema);
  } catch (error) {
    await database.close();
    // A database that cannot be reached is said as openPetStore says it, naming it without its password.
    throw database.isUnavailable(error) ? unreachableDatabase(error, target, 'so nothing was done') : error;
  }
  return {
    keys: createApiKeyStore(database.db, { schema: target.schema }),
    usage: (query) => readUsage(database.db, query, { schema: target.schema }),
    webhooks: createWebhookAdmin(database.db, { schema: target.schema }),
    through: 'database',
    close: () => database.close(),
  };
}
