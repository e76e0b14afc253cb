import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from './create-openapi-document.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const offline = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

async function lint(document: object): Promise<LintReport> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document, null, 2));
    const run = promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
      cwd: root,
      env: offline,
    });
    // redocly exits non-zero when it finds errors; the report is on stdout either way.
    const { stdout } = await run.catch((failure: { stdout: string }) => failure);
    return JSON.parse(stdout) as LintReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the OpenAPI document under redocly lint', () => {
  it('has no errors with the recommended rules', { timeout: 60_000 }, async () => {
    const report = await lint(
      createOpenApiDocument({
        servers: { production: 'https://api.petstore.dev/v1', staging: 'https://staging.petstore.dev/v1' },
      })
    );
    expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  });
});
