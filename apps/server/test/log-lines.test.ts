import { describe, expect, it } from 'vitest';
import { startProcess } from './helpers.js';

const KEY = 'log-lines-key-0123456789abcdef';
const redisUrl = process.env.REDIS_URL;

/** Every line the process wrote on stdout, each parsed (a line that is not JSON fails the test, naming it). */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`a stdout line is not JSON: ${line}`);
      }
    });
}

async function healthChecks(url: string, times: number) {
  for (let i = 0; i < times; i++) {
    const response = await fetch(`${url}${i % 2 ? '/healthz' : '/livez'}`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  }
}

describe('the log an operator reads', () => {
  it('writes no request line for 100 health checks at the default level, and one for an API request', async () => {
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro` });
    try {
      await healthChecks(server.url, 100);
      const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(response.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const requests = jsonLines(server.stdout()).filter((line) => line.msg === 'request');
    expect(requests.map((line) => line.route)).toEqual(['/v1/pets']);
  });

  it('writes the health checks at debug, for whoever turns it on', async () => {
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_LOG_LEVEL: 'debug' });
    try {
      await healthChecks(server.url, 4);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const requests = jsonLines(server.stdout()).filter((line) => line.msg === 'request');
    expect(requests.map((line) => [line.route, line.level])).toEqual([
      ['/livez', 20],
      ['/healthz', 20],
      ['/livez', 20],
      ['/healthz', 20],
    ]);
  });

  // ioredis warns with console.warn when a password is given to a Redis whose default user needs none.
  it.runIf(redisUrl)('writes only JSON lines with Redis in use, its client’s own warning among them', async () => {
    const withPassword = new URL(redisUrl!);
    withPassword.password = 'not-needed';
    const server = await startProcess({
      PETSTORE_DATA_DIR: 'memory://',
      PETSTORE_API_KEYS: `${KEY}:pro`,
      PETSTORE_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: withPassword.toString(),
      PETSTORE_REDIS_KEY_PREFIX: `log-lines-${process.pid}-${Date.now()}`,
    });
    try {
      const response = await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(response.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const lines = jsonLines(server.stdout());
    expect(lines.find((line) => String(line.msg).includes('does not require a password'))).toMatchObject({ level: 40, source: 'console' });
    expect(server.stderr()).toBe('');
  });
});
