import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { formatUsage, usageHtml, type UsageLine } from '@petstore/cli/usage';

const zero = { served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 };
const rows: UsageLine[] = [
  { day: '2026-11-26', keyId: 1, keyIds: [1], label: 'Acme, "North"', plan: 'pro', operationId: 'listPets', ...zero, served: 120, rateLimited: 3 },
  { day: '2026-11-26', keyId: 2, keyIds: [2, 5], label: '=HYPERLINK("x")', plan: 'free', operationId: 'createPet', ...zero, served: 7, banned: 1 },
  { day: '2026-11-27', principalId: 'tenant:9', plan: 'business', operationId: 'listPets', ...zero, served: 40, serverErrors: 2 },
  { day: '2026-11-27', keyId: 1, keyIds: [1], label: 'Acme, "North"', plan: 'pro', operationId: 'unmatched', ...zero, clientErrors: 5 },
];

describe('the usage reports', () => {
  it('writes CSV a billing system imports: a header row, quoted fields, no formulas, CRLF', () => {
    const csv = formatUsage(rows, 'csv');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('day,key_id,principal_id,label,plan,operation,served,rate_limited,banned,client_errors,server_errors,unmetered,key_ids');
    expect(lines[1]).toBe('2026-11-26,1,,"Acme, ""North""",pro,listPets,120,3,0,0,0,0,1');
    expect(lines[2]).toBe(`2026-11-26,2,,"'=HYPERLINK(""x"")",free,createPet,7,0,1,0,0,0,2 5`);
    expect(lines[3]).toBe('2026-11-27,,tenant:9,,business,listPets,40,0,0,0,2,0,');
    expect(lines).toHaveLength(rows.length + 2);
    expect(lines.at(-1)).toBe('');
  });

  it('writes JSON of the rows as they are, and a table with a header and every row', () => {
    expect(JSON.parse(formatUsage(rows, 'json'))).toEqual(rows);
    const table = formatUsage(rows, 'table').trimEnd().split('\n');
    expect(table[0]).toMatch(/^day\s+key_id\s+principal_id\s+label\s+plan\s+operation\s+served/);
    expect(table).toHaveLength(rows.length + 1);
    expect(table[3]).toMatch(/^2026-11-27\s+-\s+tenant:9\s+-\s+business\s+listPets\s+40\s+0\s+0\s+0\s+2\s+0\s+-$/);
    expect(formatUsage([], 'table')).toBe('No usage recorded for this selection.\n');
  });

  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  it.skipIf(!existsSync(executablePath))('draws its HTML page offline in Chromium: three charts, no request, no error', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-usage-page-'));
    const file = join(folder, 'usage.html');
    await writeFile(file, usageHtml(rows, { from: '2026-11-26', to: '2026-11-27' }));
    const context = await chromium.launchPersistentContext(join(folder, 'profile'), {
      executablePath,
      headless: true,
      offline: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
    });
    try {
      const requests: string[] = [];
      const problems: string[] = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url === pathToFileURL(file).href) return route.continue();
        requests.push(url);
        return route.abort('blockedbyclient');
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      await page.goto(pathToFileURL(file).href);
      await page.waitForFunction("document.body.dataset.charts === '3'");
      // Each canvas has been drawn on: some of its pixels are not transparent.
      const drawn = (await page.evaluate(`[...document.querySelectorAll('canvas')].map((canvas) => {
        const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return painted;
      })`)) as number[];
      expect(drawn).toHaveLength(3);
      for (const painted of drawn) expect(painted).toBeGreaterThan(1000);
      expect(await page.textContent('h1')).toBe('Pet Store usage, 2026-11-26 to 2026-11-27');
      expect(await page.textContent('pre')).toContain('=HYPERLINK("x")');
      if (process.env.PETSTORE_USAGE_SCREENSHOT) await page.screenshot({ path: process.env.PETSTORE_USAGE_SCREENSHOT, fullPage: true });
      expect(requests).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});
