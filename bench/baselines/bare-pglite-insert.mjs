// Baseline: a bare node:http server over PGlite on DATA_DIR (a copy of the service's seeded data folder, so the same
// `pets` table and indexes), with the creates of each event-loop turn grouped into one
// `insert … select from unnest(…) returning` through `pglite.query`, PGlite's documented entry (PGlite runs a
// statement synchronously, so a group can only form from the requests read in one turn). Answers 201 with each
// animal as JSON. No authentication, no validation, no rate limit; the same PGlite settings as the service. Started
// with --liftoff-only, as the service runs PGlite. DATA_DIR, PORT, HOST configure it.
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';

const pglite = await PGlite.create(process.env.DATA_DIR, {
  postgresqlconf: ['shared_buffers=8MB', 'wal_buffers=256kB', 'maintenance_work_mem=4MB', 'work_mem=1MB', 'temp_buffers=1MB'],
});
const INSERT = `
  insert into pets (name, category_id, status)
  select name, category_id, status
  from unnest($1::text[], $2::bigint[], $3::text[]) with ordinality as given(name, category_id, status, position)
  order by position
  returning id, name, category_id, status`;

let queue = [];
let scheduled = false;

async function insertGroup() {
  scheduled = false;
  const group = queue;
  queue = [];
  try {
    const { rows } = await pglite.query(INSERT, [group.map((w) => w.pet.name), group.map((w) => w.pet.categoryId), group.map((w) => w.pet.status)]);
    rows.sort((a, b) => a.id - b.id).forEach((row, i) => group[i].resolve(row));
  } catch (error) {
    for (const waiter of group) waiter.reject(error);
  }
}

function insert(pet) {
  return new Promise((resolve, reject) => {
    queue.push({ pet, resolve, reject });
    if (!scheduled) {
      scheduled = true;
      setImmediate(insertGroup);
    }
  });
}

function send(res, status, payload) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const server = createServer({ keepAliveTimeout: 5_000 }, async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const pet = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const row = await insert({ name: pet.name, categoryId: pet.categoryId, status: pet.status ?? 'available' });
    send(res, 201, JSON.stringify({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status }));
  } catch (error) {
    send(res, 500, JSON.stringify({ code: 'internal_error', message: String(error.message), status: 500 }));
  }
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => pglite.close().then(() => process.exit(0))).closeIdleConnections());
