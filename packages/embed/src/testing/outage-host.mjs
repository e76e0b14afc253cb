// A host on its own `pg` Pool (argument `pool`) or on its own Kysely over one (`db`), at the URL given, serving the
// store through createHttpHandler on a port of its own; prints `listening <port>`. On its pool it has only the
// listener every `pg` host attaches (for idle clients); with `db` it also gives each client its own `error` listener,
// as the docs ask of a host that gives its Kysely (kysely keeps its clients private, so the store cannot). An
// unhandled 'error' event ends it (exit code 1, the stack on stderr).
import { createServer } from 'node:http';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createHttpHandler, openPetStore } from '../../dist/index.js';

const [url, given, key] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 4 });
pool.on('error', () => {});
if (given === 'db') pool.on('connect', (client) => client.on('error', () => {}));
const db = new Kysely({ dialect: new PostgresDialect({ pool }) });
const { store } = await openPetStore({
  ...(given === 'db' ? { db } : { pool }),
  apiKeys: [{ key, plan: 'enterprise', limits: { perMinute: 1_000_000, perDay: 1_000_000 } }],
});
const server = createServer(createHttpHandler(store));
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
