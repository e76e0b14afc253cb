#!/usr/bin/env node
import {
  createDomainStore,
  operations,
  systemClock,
  type ApiKeyRecord,
  type DeprecatedUsage,
  type DomainRecord,
  type OperationId,
} from '@petstore/core';
import { readFile } from 'node:fs/promises';
import { createDnsCheck, openDatabase, openPetStore, restoreDataDir } from '@petstore/embed';
import { connectAdminChannel, type DomainAdmin, type KeyAdmin } from './admin-channel.js';
import { writePrivateFile } from './private-file.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { parseCommandLine, UsageError } from './cli-commands.js';
import { release } from './release.js';
import { version } from './version.js';

function isoSeconds(d: Date) {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const date = (d: Date | null | undefined) => (d ? isoSeconds(d) : '-');

/** The running service's admin channel on the embedded folder, when one runs; a channel not to trust is named. */
const reachService = (config: Config) =>
  connectAdminChannel(config.dataDir, {
    runtimeDir: config.runtimeDir,
    onIgnored: (place, reason) => process.stderr.write(`petstore: not using the admin channel in ${place.folder}: ${reason}.\n`),
  });

function row(record: ApiKeyRecord, usage: readonly DeprecatedUsage[]) {
  const own = usage.filter((u) => u.keyId === record.id);
  const last = own.reduce<Date | undefined>((latest, u) => (!latest || u.lastCalledAt > latest ? u.lastCalledAt : latest), undefined);
  return {
    id: String(record.id),
    label: record.label ?? '-',
    plan: record.plan,
    'per minute': String(record.limits.perMinute),
    'per day': String(record.limits.perDay),
    created: date(record.createdAt),
    'last used': date(record.lastUsedAt),
    revoked: date(record.revokedAt),
    expires: date(record.expiresAt),
    'replaced by': record.replacedBy ? String(record.replacedBy) : '-',
    'deprecated calls': String(own.reduce((sum, u) => sum + u.calls, 0)),
    'last deprecated call': date(last),
  };
}

/** The report of keys that still call deprecated operations, with each operation's sunset. */
function deprecatedRow(usage: DeprecatedUsage) {
  const deprecation = operations[usage.operationId as OperationId]?.deprecation;
  return {
    id: String(usage.keyId),
    label: usage.label ?? '-',
    operation: usage.operationId,
    calls: String(usage.calls),
    'last call': date(usage.lastCalledAt),
    sunset: date(deprecation?.sunset),
  };
}

function domainRow(domain: DomainRecord) {
  return {
    domain: domain.name,
    state: domain.state,
    added: date(domain.addedAt),
    'last check': date(domain.checkedAt),
    'next check': date(domain.nextCheckAt),
    redirect: domain.redirect ? `${domain.redirect.status} ${domain.redirect.to}` : '-',
    reason: domain.reason ?? '-',
  };
}

function table(rows: Record<string, string>[], none = 'No keys.\n'): string {
  if (!rows.length) return none;
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c]!)))].join('\n') + '\n';
}

async function run(argv: string[]): Promise<number> {
  // The whole command line is checked before the configuration is read or any database opened.
  const command = parseCommandLine(argv, systemClock.now());
  if (command.name === 'help') {
    process.stdout.write(command.text);
    return 0;
  }
  if (command.name === 'version') {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const config = loadConfig(process.env);
  if (command.name === 'backup') return backup(config, command.file);
  if (command.name === 'restore') return restore(config, command.file);
  if (isDomainCommand(command)) return manageDomains(config, command);

  const { keys, close } = await openKeys(config);
  try {
    switch (command.name) {
      case 'keys create': {
        const { plan, label, limits, expiresAt } = command;
        const { key, record } = await keys.create({ plan, label, expiresAt, ...(limits ? { limits } : {}) });
        const until = expiresAt ? `, until ${isoSeconds(expiresAt)}` : '';
        process.stderr.write(`Created key ${record.id} (${record.plan}${until}). Store it now: it is not shown again.\n`);
        process.stdout.write(`${key}\n`);
        return 0;
      }
      case 'keys roll': {
        const { id, graceMs, expiresAt } = command;
        const rolled = await keys.roll(id, { graceMs, ...(expiresAt ? { expiresAt } : {}) });
        if (rolled === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (rolled === 'revoked') throw new UsageError(`Key ${id} is revoked; create a new key instead.`);
        if (rolled === 'expired') throw new UsageError(`Key ${id} has expired; create a new key instead.`);
        if (rolled === 'already_rolled') throw new UsageError(`Key ${id} was already rolled; roll its replacement instead.`);
        const { record, previous } = rolled;
        process.stderr.write(
          `Rolled key ${id} into key ${record.id} (${record.plan}${record.expiresAt ? `, until ${isoSeconds(record.expiresAt)}` : ''}). ` +
            `Key ${id} works until ${isoSeconds(previous.expiresAt!)}. Store the new key now: it is not shown again.\n`,
        );
        process.stdout.write(`${rolled.key}\n`);
        return 0;
      }
      case 'keys list': {
        const [records, usage] = await Promise.all([keys.list(), keys.deprecatedUsage()]);
        const rows = records.map((record) => row(record, usage));
        process.stdout.write(command.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows));
        return 0;
      }
      case 'keys deprecated': {
        const rows = (await keys.deprecatedUsage()).map(deprecatedRow);
        if (command.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else process.stdout.write(rows.length ? table(rows) : 'No key has called a deprecated operation.\n');
        return 0;
      }
      case 'keys revoke': {
        const { id } = command;
        if (!(await keys.revoke(id))) throw new UsageError(`No key with ID ${id}.`);
        process.stdout.write(`Revoked key ${id}.\n`);
        return 0;
      }
      case 'keys set-limits': {
        const { id, limits } = command;
        const result = await keys.setLimits(id, limits);
        if (result === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (result === 'not_enterprise') throw new UsageError(`Key ${id} is not an enterprise key; its plan sets its limits.`);
        process.stdout.write(`Key ${id} now allows ${limits.perMinute} requests a minute and ${limits.perDay} a day.\n`);
        return 0;
      }
    }
  } finally {
    await close();
  }
}

/**
 * The key store: through the running service's admin channel when a service runs on the embedded folder (only one
 * process may open it), else straight from the database (PostgreSQL always; the embedded folder under its lock).
 */
async function openKeys(config: Config) {
  if (config.dataDirIsFolder) {
    const admin = await reachService(config);
    if (admin) return { keys: admin.keys, close: async () => {} };
  }
  // On an embedded folder, opening the store takes the folder's lock: refused while another process holds it.
  const service = await openPetStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    rateLimitStore: 'none',
    release,
  });
  return {
    keys: { ...service.store.apiKeys, deprecatedUsage: () => service.store.deprecatedUsage() } as KeyAdmin,
    close: () => service.close(),
  };
}

type DomainCommand = Extract<ReturnType<typeof parseCommandLine>, { name: `domains ${string}` }>;
const isDomainCommand = (command: ReturnType<typeof parseCommandLine>): command is DomainCommand => command.name.startsWith('domains ');

/**
 * The custom domains: through the running service's admin channel on the embedded folder (the service then serves a
 * change at once), else in the database, where every instance reads them again within a second.
 */
async function openDomains(config: Config): Promise<{ domains: DomainAdmin; close(): Promise<void> }> {
  if (config.dataDirIsFolder) {
    const admin = await reachService(config);
    if (admin) return { domains: admin.domains, close: async () => {} };
  }
  // On an embedded folder, opening the store takes the folder's lock: refused while another process holds it.
  const service = await openPetStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1, rateLimitStore: 'none', release });
  const check = config.platformHost ? createDnsCheck({ platformHost: config.platformHost, servers: config.dnsServers }) : undefined;
  return {
    domains: createDomainStore(service.database.db, { schema: service.schema, check }),
    close: () => service.close(),
  };
}

async function manageDomains(config: Config, command: DomainCommand): Promise<number> {
  if (command.name === 'domains verify' && !config.platformHost) {
    throw new ConfigError(['PETSTORE_PLATFORM_HOST: set it to the host custom domains point at, to verify them']);
  }
  const { domains, close } = await openDomains(config);
  try {
    switch (command.name) {
      case 'domains add': {
        const added = await domains.add(command.domain);
        if (added === 'exists') throw new UsageError(`${command.domain} is already added; see "petstore domains list".`);
        if (added === 'invalid') throw new UsageError(`"${command.domain}" is not a domain name.`);
        const target = config.platformHost ?? 'PETSTORE_PLATFORM_HOST';
        process.stdout.write(
          `Added ${added.name} (pending). Point it at ${target}: a CNAME record for a subdomain, an ALIAS/ANAME record for an apex domain; ` +
            `then run "petstore domains verify ${added.name}". It is also checked by itself for 48 hours.\n`,
        );
        return 0;
      }
      case 'domains verify': {
        const domain = await domains.verify(command.domain);
        if (domain === 'not_found') throw new UsageError(`No domain ${command.domain}; add it first: petstore domains add ${command.domain}.`);
        if (domain.state === 'verified') {
          process.stdout.write(`Verified ${domain.name}: ${domain.reason}. It is served now, and may have a certificate.\n`);
          return 0;
        }
        const next = domain.nextCheckAt ? ` Checked again by itself at ${date(domain.nextCheckAt)}.` : '';
        process.stderr.write(`${domain.name} is not verified (${domain.state}): ${domain.reason}.${next}\n`);
        return 1;
      }
      case 'domains list': {
        const rows = (await domains.list()).map(domainRow);
        process.stdout.write(command.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows, 'No custom domains.\n'));
        return 0;
      }
      case 'domains remove': {
        if (!(await domains.remove(command.domain))) throw new UsageError(`No domain ${command.domain}.`);
        process.stdout.write(`Removed ${command.domain}: it is no longer served, and gets no new certificate.\n`);
        return 0;
      }
      case 'domains redirect': {
        const domain = await domains.redirect(command.domain, command.redirect);
        if (domain === 'not_found') throw new UsageError(`No domain ${command.domain}; add it first: petstore domains add ${command.domain}.`);
        if (domain === 'invalid') throw new UsageError(`Cannot redirect ${command.domain} there.`);
        const how = domain.redirect ? `redirects to ${domain.redirect.to} (${domain.redirect.status})` : 'no longer redirects';
        const served = domain.state === 'verified' ? '' : ` It takes effect once ${domain.name} is verified.`;
        process.stdout.write(`${domain.name} ${how}, path and query kept.${served}\n`);
        return 0;
      }
    }
  } finally {
    await close();
  }
}

async function backup(config: Config, file: string): Promise<number> {
  if (!config.dataDirIsFolder) {
    throw new UsageError('backup copies the embedded database in a folder; for PostgreSQL use pg_dump (see the README).');
  }
  const admin = await reachService(config);
  let bytes: Buffer;
  if (admin) {
    bytes = await admin.backup();
  } else {
    // Under the folder's lock, taken by openDatabase.
    const database = await openDatabase({ dataDir: config.dataDir });
    try {
      bytes = Buffer.from(await (await database.backup!()).arrayBuffer());
    } finally {
      await database.close();
    }
  }
  // It holds the key hashes: readable by its owner only.
  await writePrivateFile(file, bytes);
  process.stdout.write(`Wrote a backup of ${config.dataDir} to ${file} (${bytes.length} bytes).\n`);
  return 0;
}

async function restore(config: Config, file: string): Promise<number> {
  if (!config.dataDirIsFolder) throw new UsageError('restore fills an embedded data folder (PETSTORE_DATA_DIR); for PostgreSQL use pg_restore.');
  const bytes = await readFile(file);
  // Under the folder's lock, taken by restoreDataDir.
  await restoreDataDir(config.dataDir, new Blob([bytes]));
  process.stdout.write(`Restored ${file} into ${config.dataDir}.\n`);
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof UsageError || error instanceof ConfigError;
    const help = error instanceof UsageError && error.command ? `petstore ${error.command} --help` : 'petstore --help';
    process.stderr.write(`petstore: ${(error as Error).message}\n${known ? `Run "${help}" for usage.\n` : ''}`);
    process.exit(known ? 2 : 1);
  },
);
