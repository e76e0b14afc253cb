import { connectAdminChannel } from '@petstore/cli/admin-channel';
import type { CliIo } from './cli-io.js';
import type { Config } from './config.js';

/**
 * The running service's admin channel on the embedded folder, when one runs; a channel not to trust is named on
 * stderr and not used.
 * @example const admin = config.dataDirIsFolder ? await reachService(config, io) : undefined
 */
export const reachService = (config: Config, io: CliIo) =>
  connectAdminChannel(config.dataDir, {
    runtimeDir: config.runtimeDir,
    onIgnored: (place, reason) => io.err.write(`petstore: not using the admin channel in ${place.folder}: ${reason}.\n`),
  });
