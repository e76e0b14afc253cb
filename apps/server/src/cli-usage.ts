import { printUsage } from '@petstore/cli/usage';
import type { Command } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { openKeys } from './cli-keys.js';
import type { Config } from './config.js';

/**
 * Runs `petstore usage`: the report of `@petstore/cli/usage` (the one `npx @petstore/cli usage` prints), through the
 * running service on an embedded folder, else straight from the database, as the key commands are.
 * @example await runUsageCommand({ name: 'usage', format: 'csv', … }, config, io)
 */
export async function runUsageCommand(command: Extract<Command, { name: 'usage' }>, config: Config, io: CliIo): Promise<number> {
  const { keys, close } = await openKeys(config, io);
  try {
    return await printUsage({ list: () => keys.list(), usage: (query) => keys.usage(query) }, command, io);
  } finally {
    await close();
  }
}
