import { spawn } from 'node:child_process';

/** This process's CPU time (the server's, when the client is another process) per request of `run`, in ms. */
export async function cpuPerRequest(count: number, run: () => Promise<unknown>) {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1_000 / count;
}

/**
 * Sends `count` GET requests for `path` with `headers`, one after another on one keep-alive connection, from a
 * process of its own (so that a test measuring this process's CPU measures only the server's). Answers how many got
 * each status.
 * @example const statuses = await getsFromChild(running.url, 100, '/v1/pets', { authorization: `Bearer ${key}` })
 */
export function getsFromChild(url: string, count: number, path: string, headers: Record<string, string>) {
  const script = `
    import http from 'node:http';
    const [url, count, path, headers] = process.argv.slice(1);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const statuses = {};
    for (let i = 0; i < Number(count); i++) {
      const status = await new Promise((resolve, reject) => {
        http.get(new URL(path, url), { agent, headers: JSON.parse(headers) }, (answer) => {
          answer.resume().on('end', () => resolve(answer.statusCode));
        }).on('error', reject);
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
    agent.destroy();
    console.log(JSON.stringify(statuses));
  `;
  return clientInChild(script, [url, String(count), path, JSON.stringify(headers)]);
}

/**
 * Runs `script` (an ES module reading its arguments from `process.argv.slice(1)`) as a client in a process of its
 * own, and answers what it printed as JSON: how many answers got each status.
 * @example await clientInChild(`console.log(JSON.stringify({ 200: 1 }))`, [])
 */
export function clientInChild(script: string, args: string[]) {
  return new Promise<Record<string, number>>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`the client exited with ${code}`))));
  });
}
