import { createDomainStore, type DomainRecord } from '@petstore/core';
import type { DomainAdmin } from '@petstore/cli/admin-channel';
import { UsageError, type Command } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { reachService } from './cli-service.js';
import { date, table } from './cli-table.js';
import { ConfigError, type Config } from './config.js';
import { release } from './release.js';

/** A command of `petstore domains`. */
export type DomainCommand = Extract<Command, { name: `domains ${string}` }>;

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

/**
 * The custom domains: through the running service's admin channel on the embedded folder (the service then serves a
 * change at once), else in the database, where every instance reads them again within a second.
 */
async function openDomains(config: Config, io: CliIo): Promise<{ domains: DomainAdmin; close(): Promise<void> }> {
  if (config.dataDirIsFolder) {
    const admin = await reachService(config, io);
    if (admin) return { domains: admin.domains, close: async () => {} };
  }
  // On an embedded folder, opening the store takes the folder's lock: refused while another process holds it.
  const { createDnsCheck, openPetStore } = await import('@petstore/embed');
  // A domain tool sends no webhook deliveries: the service's instances do.
  const service = await openPetStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    rateLimitStore: 'none',
    release,
    webhooks: { deliver: false },
  });
  const check = config.platformHost ? createDnsCheck({ platformHost: config.platformHost, servers: config.dnsServers }) : undefined;
  return {
    domains: createDomainStore(service.database.db, { schema: service.schema, check }),
    close: () => service.close(),
  };
}

/**
 * Runs one `petstore domains` command; answers its exit code (1: a domain not verified), or throws a
 * {@link UsageError} for a domain it cannot act on.
 * @example await runDomainCommand({ name: 'domains list', json: false }, config, io)
 */
export async function runDomainCommand(command: DomainCommand, config: Config, io: CliIo): Promise<number> {
  if (command.name === 'domains verify' && !config.platformHost) {
    throw new ConfigError(['PETSTORE_PLATFORM_HOST: set it to the host custom domains point at, to verify them']);
  }
  const { domains, close } = await openDomains(config, io);
  try {
    switch (command.name) {
      case 'domains add': {
        const added = await domains.add(command.domain);
        if (added === 'exists') throw new UsageError(`${command.domain} is already added; see "petstore domains list".`);
        if (added === 'invalid') throw new UsageError(`"${command.domain}" is not a domain name.`);
        const target = config.platformHost ?? 'PETSTORE_PLATFORM_HOST';
        io.out.write(
          `Added ${added.name} (pending). Point it at ${target}: a CNAME record for a subdomain, an ALIAS/ANAME record for an apex domain; ` +
            `then run "petstore domains verify ${added.name}". It is also checked by itself for 48 hours.\n`,
        );
        return 0;
      }
      case 'domains verify': {
        const domain = await domains.verify(command.domain);
        if (domain === 'not_found') throw new UsageError(`No domain ${command.domain}; add it first: petstore domains add ${command.domain}.`);
        if (domain.state === 'verified') {
          io.out.write(`Verified ${domain.name}: ${domain.reason}. It is served now, and may have a certificate.\n`);
          return 0;
        }
        const next = domain.nextCheckAt ? ` Checked again by itself at ${date(domain.nextCheckAt)}.` : '';
        io.err.write(`${domain.name} is not verified (${domain.state}): ${domain.reason}.${next}\n`);
        return 1;
      }
      case 'domains list': {
        const rows = (await domains.list()).map(domainRow);
        io.out.write(command.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows, 'No custom domains.\n'));
        return 0;
      }
      case 'domains remove': {
        if (!(await domains.remove(command.domain))) throw new UsageError(`No domain ${command.domain}.`);
        io.out.write(`Removed ${command.domain}: it is no longer served, and gets no new certificate.\n`);
        return 0;
      }
      case 'domains redirect': {
        const domain = await domains.redirect(command.domain, command.redirect);
        if (domain === 'not_found') throw new UsageError(`No domain ${command.domain}; add it first: petstore domains add ${command.domain}.`);
        if (domain === 'invalid') throw new UsageError(`Cannot redirect ${command.domain} there.`);
        const how = domain.redirect ? `redirects to ${domain.redirect.to} (${domain.redirect.status})` : 'no longer redirects';
        const served = domain.state === 'verified' ? '' : ` It takes effect once ${domain.name} is verified.`;
        io.out.write(`${domain.name} ${how}, path and query kept.${served}\n`);
        return 0;
      }
    }
  } finally {
    await close();
  }
}
