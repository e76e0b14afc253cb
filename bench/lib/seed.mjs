// Seeds animals straight into the `pets` table the service's migrations made, with one set-based INSERT.
// Every database gets the same rows: id i is "Pet i", category (i mod 20) + 1, status cycling
// available, pending, sold, so the list responses are the same bytes on every database.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The INSERT adding animals `from`..`to`. */
export function seedSql(from, to) {
  return `insert into pets (name, category_id, status)
    select 'Pet ' || i, (i % 20) + 1, (array['available', 'pending', 'sold'])[((i - 1) % 3) + 1]
    from generate_series(${from}, ${to}) as i`;
}

/** Inserts `count` animals in batches of a million, then analyzes the table. */
export async function seedPostgres(url, count) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let from = 1; from <= count; from += 1_000_000) {
      await client.query(seedSql(from, Math.min(count, from + 999_999)));
    }
    await client.query('vacuum analyze pets');
  } finally {
    await client.end();
  }
}

/** Adds `count` more animals, all `available` ("Sale i"), to a PostgreSQL database, as `seedAvailable` does. */
export async function seedAvailablePostgres(url, count) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`insert into pets (name, category_id, status) select 'Sale ' || i, 1, 'available' from generate_series(1, ${count}) as i`);
    await client.query('vacuum analyze pets');
  } finally {
    await client.end();
  }
}

/** Inserts `count` animals into an embedded (PGlite) data directory no process holds open. */
export async function seedEmbedded(dataDir, count) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  try {
    await db.exec(seedSql(1, count));
    await db.exec('vacuum analyze pets');
  } finally {
    await db.close();
  }
}

/** Adds `count` more animals, all `available` ("Sale i"), to an embedded data directory no process holds open. */
export async function seedAvailable(dataDir, count) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create(dataDir);
  try {
    await db.exec(`insert into pets (name, category_id, status) select 'Sale ' || i, 1, 'available' from generate_series(1, ${count}) as i`);
    await db.exec('vacuum analyze pets');
  } finally {
    await db.close();
  }
}

function withDatabase(baseUrl, name) {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(baseUrl, sql) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty scratch database `petstore_bench_<run>_<label>` on the server of `baseUrl`. */
export async function createScratchDatabase(baseUrl, label) {
  const name = `petstore_bench_${randomBytes(4).toString('hex')}_${label}`;
  await admin(baseUrl, `create database ${name}`);
  return {
    name,
    url: withDatabase(baseUrl, name),
    drop: () => admin(baseUrl, `drop database if exists ${name} with (force)`),
  };
}

/** The server's version string, e.g. "PostgreSQL 15.18". */
export async function postgresVersion(baseUrl) {
  const { rows } = await admin(baseUrl, 'show server_version');
  return `PostgreSQL ${rows[0].server_version}`;
}

/** Whether the URL names a server on this machine (so its CPU time can be read from /proc). */
export function isLocal(url) {
  return ['127.0.0.1', 'localhost', '[::1]', '::1', ''].includes(new URL(url).hostname);
}
