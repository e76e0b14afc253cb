import { main } from '../src/cli-main.js';

/**
 * Runs the `petstore` tool in this process, as `petstore …` would with this environment, and collects what it prints
 * and the exit code it answers. The process around it (cli.ts, the bin) is tested by spawning it (cli-process.test.ts).
 * @example const { code, stdout } = await run(['keys', 'list', '--json'], { PETSTORE_DATA_DIR: dir })
 */
export async function run(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const io = { env, out: { write: (text: string) => (stdout += text) }, err: { write: (text: string) => (stderr += text) } };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
