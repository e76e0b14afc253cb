// Baseline: a bare node:http server that inserts the posted animal into the service's `pets` table with one
// `INSERT … RETURNING` through a `pg` pool (10 connections, as the service's) and answers 201 with it as JSON.
// No authentication, no validation, no rate limit. DATABASE_URL, PORT, HOST configure it.
import { createServer } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const INSERT = 'insert into pets (name, category_id, status) values ($1, $2, $3) returning id, name, category_id, status';

function send(res, status, payload) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

const server = createServer({ keepAliveTimeout: 5_000 }, async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  try {
    const pet = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const { rows } = await pool.query(INSERT, [pet.name, pet.categoryId, pet.status ?? 'available']);
    const row = rows[0];
    send(res, 201, JSON.stringify({ id: Number(row.id), name: row.name, categoryId: Number(row.category_id), status: row.status }));
  } catch (error) {
    send(res, 500, JSON.stringify({ code: 'internal_error', message: String(error.message), status: 500 }));
  }
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))).closeIdleConnections());
