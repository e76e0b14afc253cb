import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteTemplate } from './pglite-template.js';
import { isDatabaseUnavailable } from '@petstore/core';
import { createStatementRunner, type RunStatement } from './pglite-statements.js';

describe('statements on PGlite, prepared once and run as one protocol message', () => {
  let pglite: PGlite;
  let run: RunStatement;
  let messages = 0;
  beforeAll(async () => {
    // The build's template when there is one: a fresh cluster without it takes seconds to initialise.
    const loadDataDir = await pgliteTemplate();
    pglite = await PGlite.create('memory://', loadDataDir ? { loadDataDir } : {});
    await pglite.exec(`
      create table things (
        id bigint generated always as identity primary key,
        name text not null,
        size bigint not null check (size > 0),
        tags text[],
        extra jsonb,
        flag boolean,
        at timestamptz not null default now()
      )`);
    // Counts what reaches the database, through the instance's own method.
    const execProtocol = pglite.execProtocol.bind(pglite);
    run = createStatementRunner({
      execProtocol: (message, options) => {
        messages++;
        return execProtocol(message, options);
      },
      get closed() {
        return pglite.closed;
      },
    });
  });
  afterAll(async () => {
    if (!pglite.closed) await pglite.close();
  });

  const insert = 'insert into things (name, size, tags, extra, flag) values ($1, $2, $3, $4, $5) returning *';
  const select = 'select * from things where id = any($1::bigint[]) order by id';

  it('answers what PGlite\'s own query answers, for parameters and columns of every kind the store uses', async () => {
    const row = ['Quote " back\\slash 🐈', 9007199254740991, ['a', 'b "c"', null], { deep: [1, 'two'] }, true];
    const prepared = await run<Record<string, unknown>>(insert, row);
    const viaQuery = await pglite.query<Record<string, unknown>>(insert, row);
    expect(prepared.affectedRows).toBe(1);
    expect({ ...prepared.rows[0], id: 0, at: 0 }).toEqual({ ...viaQuery.rows[0], id: 0, at: 0 });
    expect(prepared.rows[0]!.at).toBeInstanceOf(Date);
    expect(prepared.rows[0]).toMatchObject({ size: 9007199254740991, tags: ['a', 'b "c"', null], extra: { deep: [1, 'two'] }, flag: true });
    const ids = [prepared.rows[0]!.id, viaQuery.rows[0]!.id];
    expect((await run(select, [ids])).rows).toEqual((await pglite.query(select, [ids])).rows);
    expect(await run('select $1::text as none', [null])).toMatchObject({ rows: [{ none: null }] });
  });

  it('parses each text once: every later execution is one message and one prepared statement', async () => {
    const text = 'select count(*)::int as n from things where size >= $1';
    await run(text, [1]);
    const before = messages;
    for (let i = 0; i < 5; i++) await run(text, [i + 1]);
    expect(messages - before).toBe(5);
    const { rows } = await run<{ n: number }>('select count(*)::int as n from pg_prepared_statements where statement = $1', [text]);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('reports a failed statement with its SQLSTATE and leaves the session usable, also inside a transaction', async () => {
    await expect(run(insert, ['Too small', 0, null, null, null])).rejects.toMatchObject({ code: '23514' });
    await run('begin', []);
    await expect(run(insert, ['Too small', -1, null, null, null])).rejects.toMatchObject({ code: '23514' });
    await expect(run('select 1', [])).rejects.toMatchObject({ code: '25P02' });
    await run('rollback', []);
    expect((await run<{ ok: number }>('select 1 as ok', [])).rows).toEqual([{ ok: 1 }]);
  });

  it('keeps at most 256 prepared statements, forgetting the oldest', async () => {
    for (let i = 0; i < 300; i++) await run(`select ${i} as n`, []);
    const { rows } = await run<{ n: number }>('select count(*)::int as n from pg_prepared_statements', []);
    expect(rows[0]!.n).toBeLessThanOrEqual(256);
    expect((await run<{ n: number }>('select 3 as n', [])).rows).toEqual([{ n: 3 }]);
  });

  // Last: it closes the instance.
  it('fails as unavailable once PGlite is closed', async () => {
    await pglite.close();
    const error = await run('select 1 as ok', []).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
  });
});
