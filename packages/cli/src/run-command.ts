import { createApiKeyStore, type ApiKeyRecord, type Database } from '@petstore/core';
import { openDatabase } from '@petstore/drivers';
import type { Kysely } from 'kysely';
import type { Command } from './parse-command.js';

type Out = { write(text: string): unknown };
const time = (d: Date | null | undefined) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

function table(records: readonly ApiKeyRecord[]): string {
  if (records.length === 0) return 'No keys.\n';
  const rows = records.map((r) => ({
    id: String(r.id),
    label: r.label ?? '-',
    plan: r.plan,
    'per minute': String(r.limits.perMinute),
    'per day': String(r.limits.perDay),
    created: time(r.createdAt),
    'last used': time(r.lastUsedAt),
    revoked: time(r.revokedAt),
    expires: time(r.expiresAt),
  }));
  const columns = Object.keys(rows[0]!) as (keyof (typeof rows)[number])[];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c])))].join('\n') + '\n';
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

/**
 * Runs a parsed command on the host's database with one connection, writing what it prints to `out`; answers the exit
 * code (1 when the key named does not exist, or cannot take the change).
 * @example await runCommand(parseCommand(['keys', 'list'], process.env), process.stdout, process.stderr)
 */
export async function runCommand(command: Exclude<Command, { name: 'help' }>, out: Out, err: Out): Promise<number> {
  const database = await openDatabase({ databaseUrl: command.databaseUrl, poolSize: 1 });
  try {
    await expectTables(database.db, command.schema);
    const keys = createApiKeyStore(database.db, { schema: command.schema });
    switch (command.name) {
      case 'create': {
        const { key, record } = await keys.create({
          plan: command.plan,
          label: command.label ?? null,
          ...(command.limits ? { limits: command.limits } : {}),
          ...(command.expiresAt ? { expiresAt: command.expiresAt } : {}),
        });
        out.write(`${key}\n`);
        err.write(`Key ${record.id} (${record.plan}) created. It is shown only this once.\n`);
        return 0;
      }
      case 'list': {
        const records = await keys.list();
        out.write(command.json ? `${JSON.stringify(records)}\n` : table(records));
        return 0;
      }
      case 'revoke':
        if (await keys.revoke(command.id)) {
          out.write(`Key ${command.id} revoked.\n`);
          return 0;
        }
        err.write(`No key ${command.id}.\n`);
        return 1;
      case 'set-limits': {
        const result = await keys.setLimits(command.id, command.limits);
        if (result === 'updated') {
          out.write(`Key ${command.id}: ${command.limits.perMinute} per minute, ${command.limits.perDay} per day.\n`);
          return 0;
        }
        err.write(result === 'not_found' ? `No key ${command.id}.\n` : `Key ${command.id} is not an enterprise key: its plan sets its limits.\n`);
        return 1;
      }
    }
  } finally {
    await database.close();
  }
}
