import type { ApiKeyRecord } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { table } from './cli-table.js';
import { byLineage, formatUsage } from '@petstore/cli/usage';
import { run } from '../test/cli-run.js';

// Rows written before labels had a rule (or by another writer) may hold anything: these retitled a terminal and
// forged a usage row when printed raw.
const TITLE = 'ops\u001b]0;pwned\u0007';
const FORGED_ROW = 'billing\n2026-11-01  7  -  pro  listPets  999999';
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/;

// One key each, so that each label is its own line of the report.
const usageLines = (labels: readonly string[]) =>
  byLineage(
    labels.map((_, i) => ({ day: '2026-11-01', keyId: i + 1, plan: 'pro', operationId: 'listPets', served: 1, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 })),
    labels.map((label, i) => ({ id: i + 1, label, quotaKeyId: undefined })),
  );

describe('labels as the key tool prints them', () => {
  it('escapes every control character of a label in a table, so a label can neither retitle the terminal nor add a line', () => {
    const printed = table([{ id: '1', label: TITLE }, { id: '2', label: FORGED_ROW }]);
    expect(printed).not.toMatch(CONTROLS);
    expect(printed.split('\n')).toHaveLength(4);
    expect(printed).toContain('ops\\u{1b}]0;pwned\\u{7}');
    expect(printed).toContain('billing\\u{a}2026-11-01');
  });

  it('escapes them in every form of petstore usage: table, CSV and JSON (the same value, escaped)', () => {
    const rows = usageLines([TITLE, FORGED_ROW, 'a\u009b2Jb']);
    const tableText = formatUsage(rows, 'table');
    expect(tableText).not.toMatch(CONTROLS);
    expect(tableText.trimEnd().split('\n')).toHaveLength(4);
    const csv = formatUsage(rows, 'csv');
    expect(csv.replaceAll('\r\n', '')).not.toMatch(CONTROLS);
    expect(csv.trimEnd().split('\r\n')).toHaveLength(4);
    const json = formatUsage(rows, 'json');
    expect(json.replaceAll('\n', '')).not.toMatch(CONTROLS);
    expect((JSON.parse(json) as ApiKeyRecord[]).map((row) => row.label)).toEqual([TITLE, FORGED_ROW, 'a\u009b2Jb']);
  });

  it('refuses such a label when a key is made, before opening anything, showing it escaped', async () => {
    const refused = await run(['keys', 'create', '--plan', 'free', '--label', TITLE], { PETSTORE_DATA_DIR: '/nonexistent/never-opened' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--label must not contain control');
    expect(refused.stderr).toContain('ops\\u{1b}]0;pwned\\u{7}');
    expect(refused.stderr).not.toMatch(CONTROLS);
    const long = await run(['keys', 'create', '--plan', 'free', '--label', 'x'.repeat(101)], { PETSTORE_DATA_DIR: '/nonexistent/never-opened' });
    expect(long.stderr).toContain('--label must be 1 to 100 characters long');
  });
});
