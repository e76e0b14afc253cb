import { parseCommand, UsageError } from './parse-command.js';
import { cliVersion } from './version.js';

type Out = { write(text: string): unknown };

/**
 * The key tool's whole run: reads the command line, runs it, and answers the exit code (0, 1 on failure, 2 for a
 * command line it does not take), writing to `out` and `err` only. The command line is read before the store and
 * the database drivers load (run-command.ts is imported only for a command to run), so help and mistakes answer at once.
 * @example process.exitCode = await main(['keys', 'list'], { env: process.env, out: process.stdout, err: process.stderr })
 */
export async function main(argv: readonly string[], io: { env: Readonly<Record<string, string | undefined>>; out: Out; err: Out }): Promise<number> {
  let command;
  try {
    command = parseCommand(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err.write(`${error.message}\nSee npx @petstore/cli --help.\n`);
    return 2;
  }
  if (command.name === 'help') {
    io.out.write(command.text);
    return 0;
  }
  if (command.name === 'version') {
    io.out.write(`${cliVersion}\n`);
    return 0;
  }
  try {
    const { runCommand } = await import('./run-command.js');
    return await runCommand(command, io.out, io.err);
  } catch (error) {
    io.err.write(`${(error as Error).message}\n`);
    return 1;
  }
}
