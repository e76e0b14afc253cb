import { testDatabases } from '@petstore/testing';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownJson, shownText } from '../domain/visible-text.js';
import { createApiKeyStore, labelProblem, type ApiKeyStore, type Database } from '../index.js';

const TITLE = 'ops\u001b]0;pwned\u0007';
const FORGED_ROW = 'billing\r\n2026-11-01  7  0  pro  listPets  999999';

describe("a key's label", () => {
  it('takes 1 to 100 characters that show as written, as an animal name does', () => {
    for (const label of ['mobile app', 'Zoë’s shop 🐈‍⬛', 'x'.repeat(100), 'فروشگاه\u200Cمن']) expect(labelProblem(label)).toBeUndefined();
    for (const label of [TITLE, FORGED_ROW, 'a\tb', 'right\u202Eleft', 'x'.repeat(101), '', '   ', 'lone \uD800']) {
      expect(labelProblem(label), JSON.stringify(label)).toBeDefined();
    }
  });

  it('is shown escaped, whatever an old row holds: no ESC, BEL, CR or LF reaches a terminal', () => {
    expect(shownText(TITLE)).toBe('ops\\u{1b}]0;pwned\\u{7}');
    expect(shownText(FORGED_ROW)).toBe('billing\\u{d}\\u{a}2026-11-01  7  0  pro  listPets  999999');
    expect(shownText('Zoë 🐈‍⬛')).toBe('Zoë 🐈‍⬛');
    const json = shownJson(JSON.stringify({ label: `a\u009b2Jb\u2028c\u202Ed${TITLE}` }));
    expect(json).toBe('{"label":"a\\u009b2Jb\\u2028c\\u202ed' + 'ops\\u001b]0;pwned\\u0007"}');
    expect(JSON.parse(json)).toEqual({ label: `a\u009b2Jb\u2028c\u202Ed${TITLE}` });
    expect(json).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u202e]/);
  });
});

describe.each(testDatabases)('labels in the key store on $name', (database) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  let keys: ApiKeyStore;
  beforeAll(async () => {
    ({ db, close } = await database.open());
    keys = createApiKeyStore(db);
  });
  afterAll(() => close());

  it('refuses a label that drives a terminal or runs long when a key is made, naming it escaped', async () => {
    await expect(keys.create({ plan: 'free', label: TITLE })).rejects.toThrow(/^A key's label must not contain control .*"ops\\u\{1b\}\]0;pwned\\u\{7\}"\.$/);
    await expect(keys.create({ plan: 'free', label: 'x'.repeat(101) })).rejects.toThrow(RangeError);
    await expect(keys.ensure('configured-label-key-0123456789', { plan: 'free', label: FORGED_ROW })).rejects.toThrow(RangeError);
    const { record } = await keys.create({ plan: 'free', label: 'Zoë’s shop 🐈‍⬛' });
    expect(record.label).toBe('Zoë’s shop 🐈‍⬛');
    const { record: unlabelled } = await keys.create({ plan: 'free' });
    expect(unlabelled.label).toBeNull();
    const stored = await sql<{ n: number }>`select count(*)::int as n from api_keys where label like 'ops%' or label like 'billing%'`.execute(db);
    expect(stored.rows[0]!.n).toBe(0);
  });
});
