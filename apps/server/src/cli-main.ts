import { parseCommandLine, UsageError, type Command } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { version } from './version.js';

type Work = Exclude<Command, { name: 'help' | 'version' }>;

/** Runs a checked command: reads the configuration, then loads only what that command uses. */
async function runCommand(command: Work, io: CliIo): Promise<number> {
  const { loadConfig } = await import('./config.js');
  const config = loadConfig(io.env);
  if (command.name === 'backup' || command.name === 'restore') {
    const { backup, restore } = await import('./cli-backup.js');
    return command.name === 'backup' ? backup(config, command.file, io) : restore(config, command.file, io);
  }
  if (command.name === 'usage') {
    const { runUsageCommand } = await import('./cli-usage.js');
    return runUsageCommand(command, config, io);
  }
  if (command.name.startsWith('webhooks ')) {
    const { runWebhookCommand } = await import('./cli-webhooks.js');
    return runWebhookCommand(command as Extract<Work, { name: `webhooks ${string}` }>, config, io);
  }
  if (command.name.startsWith('domains ')) {
    const { runDomainCommand } = await import('./cli-domains.js');
    return runDomainCommand(command as Extract<Work, { name: `domains ${string}` }>, config, io);
  }
  const { runKeyCommand } = await import('./cli-keys.js');
  return runKeyCommand(command as Extract<Work, { name: `keys ${string}` }>, config, io);
}

/**
 * The `petstore` tool's whole run, answering its exit code: 0, 1 when it failed, 2 for a command line or
 * configuration it does not take. The command line is checked before anything heavy loads, the configuration is read,
 * or a database is opened, so help and mistakes answer at once.
 * @example process.exitCode = await main(['keys', 'list'], { env: process.env, out: process.stdout, err: process.stderr })
 */
export async function main(argv: string[], io: CliIo, now = Date.now()): Promise<number> {
  try {
    const command = parseCommandLine(argv, now);
    if (command.name === 'help') {
      io.out.write(command.text);
      return 0;
    }
    if (command.name === 'version') {
      io.out.write(`${version}\n`);
      return 0;
    }
    return await runCommand(command, io);
  } catch (error) {
    // A ConfigError is told by its name: config.ts (zod and the core) is not loaded for help or a refused command line.
    const known = error instanceof UsageError || (error as Error | undefined)?.name === 'ConfigError';
    const help = error instanceof UsageError && error.command ? `petstore ${error.command} --help` : 'petstore --help';
    io.err.write(`petstore: ${(error as Error).message}\n${known ? `Run "${help}" for usage.\n` : ''}`);
    return known ? 2 : 1;
  }
}
