import type { DomainHostsSnapshot, DomainStore } from '@petstore/core';
import type { Logger } from 'pino';

/**
 * How often each instance reads the domains table. A short poll, not LISTEN/NOTIFY: it works the same on the embedded
 * database, through PgBouncer in transaction pooling (where LISTEN does not), and needs no connection of its own;
 * the table holds a few rows, so a read costs well under a millisecond. Every 500 ms: a change reaches every
 * instance within a second (DECISIONS), and an idle instance wakes about 4 times a second, half of them for this
 * read (every 250 ms it woke 6 to 7 times; docs/decisions.md).
 */
export const DOMAIN_POLL_MS = 500;
/** How often due re-checks of pending domains are looked for; each domain's own backoff decides when it is due. */
export const RECHECK_EVERY_MS = 15_000;

/** The custom domains as this instance serves them, kept fresh by polling the database. */
export interface DomainRegistry {
  /** The domains now: read by the edge on every request. */
  current(): DomainHostsSnapshot;
  /** Reads the table now (after a change made through this instance). */
  refresh(): Promise<void>;
  close(): void;
}

const NONE: DomainHostsSnapshot = Object.freeze({ managed: false, verified: new Map() });

/**
 * Starts polling the domains table and, when domains can be verified (`recheck`), re-checking due pending domains.
 * While the database does not answer, the last domains read stay in force.
 * @example const registry = await startDomainRegistry({ domains, recheck: true, logger }); registry.current().managed
 */
export async function startDomainRegistry(options: {
  domains: DomainStore;
  recheck: boolean;
  logger: Logger;
  pollMs?: number;
  recheckMs?: number;
}): Promise<DomainRegistry> {
  const { domains, logger } = options;
  let snapshot = NONE;
  let reading: Promise<void> | undefined;
  const refresh = () =>
    (reading ??= domains
      .snapshot()
      .then(
        (next) => {
          snapshot = next;
        },
        () => {},
      )
      .finally(() => {
        reading = undefined;
      }));
  await refresh();
  const poll = setInterval(() => void refresh(), options.pollMs ?? DOMAIN_POLL_MS);
  poll.unref();
  let checking = false;
  const recheck = options.recheck
    ? setInterval(() => {
        if (checking) return;
        checking = true;
        domains
          .recheckDue()
          .then(
            (checked) => {
              if (checked > 0) logger.info({ checked }, 'custom domains re-checked');
            },
            (error: unknown) => logger.warn({ err: error }, 'custom domain re-check failed'),
          )
          .finally(() => {
            checking = false;
          });
      }, options.recheckMs ?? RECHECK_EVERY_MS)
    : undefined;
  recheck?.unref();
  return {
    current: () => snapshot,
    refresh,
    close() {
      clearInterval(poll);
      if (recheck) clearInterval(recheck);
    },
  };
}
