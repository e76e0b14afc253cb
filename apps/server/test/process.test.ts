import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs, startProcess } from './helpers.js';

describe('the service process on the embedded database', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-process-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('prints a working development key once, and keeps its data across a graceful restart', async () => {
    const first = await startProcess({ PETSTORE_DATA_DIR: dataDir });
    const key = /\n {2}(psk_[0-9A-Za-z]{38})\n/.exec(first.stdout())?.[1];
    expect(key, first.stdout()).toBeDefined();
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const health = await fetch(`${first.url}/healthz`);
    expect(health.status).toBe(200);
    const created = await fetch(`${first.url}/v1/pets`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Kept', categoryId: 4 }) });
    expect(created.status).toBe(201);
    const pet = await created.json();
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await startProcess({ PETSTORE_DATA_DIR: dataDir });
    expect(second.stdout()).not.toContain('psk_');
    const read = await fetch(`${second.url}/v1/pets?limit=100`, { headers: auth });
    expect(read.status).toBe(200);
    expect(await read.json()).toContainEqual(pet);
    expect(await second.stop('SIGINT')).toBe(0);
  });

  it('lets an in-flight request finish on SIGTERM before it exits', async () => {
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: 'inflight-key-0123456789:pro' });
    const body = JSON.stringify({ name: 'Late', categoryId: 1 });
    const { hostname, port } = new URL(server.url);
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { hostname, port, path: '/v1/pets', method: 'POST', headers: { authorization: 'Bearer inflight-key-0123456789', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 5));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(5)), 300);
      }, 200);
    });
    const answer = await response;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'Late', categoryId: 1, status: 'available' });
    const [code] = await once(server.child, 'exit');
    expect(code).toBe(0);
    expect(server.stdout()).toContain('"msg":"Stopped"');
  });

  it('drains busy keep-alive clients on SIGTERM and stops cleanly, failing none of their requests', async () => {
    const key = 'draining-key-0123456789';
    const server = await startProcess({ PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${key}:enterprise:100000:1000000` });
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const { hostname, port } = new URL(server.url);
    const statuses: number[] = [];
    const get = () =>
      new Promise<number>((resolve, reject) => {
        const req = request({ agent, hostname, port, path: '/v1/pets', headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume().on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end();
      });
    let running = true;
    const clients = Array.from({ length: 8 }, async () => {
      while (running) statuses.push(await get().catch(() => 0));
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');
    const [code] = await once(server.child, 'exit');
    const took = Date.now() - stoppedAt;
    running = false;
    await Promise.all(clients);
    agent.destroy();
    expect(code).toBe(0);
    expect(took).toBeLessThan(5_000);
    const answered = statuses.filter((s) => s !== 0);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((s) => s === 200)).toBe(true);
    expect(server.stdout()).not.toContain('request failed');
  });

  it('refuses a second process on the same embedded database folder', async () => {
    const first = await startProcess({ PETSTORE_DATA_DIR: dataDir });
    await expect(startProcess({ PETSTORE_DATA_DIR: dataDir })).rejects.toThrow(/in use by process/);
    expect(await first.stop()).toBe(0);
  });

  it('stops at start-up with a clear message when a setting is bad', async () => {
    const child = spawn(process.execPath, [mainJs], { env: { PATH: process.env.PATH ?? '', PORT: 'eighty', PETSTORE_TRUST_PROXY: 'perhaps' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(stderr).toContain('Invalid configuration:');
    expect(stderr).toContain('PORT: must be a whole number');
    expect(stderr).toContain('PETSTORE_TRUST_PROXY: write false, true, a number of proxy hops');
  });
});
