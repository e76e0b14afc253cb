// A process of its own for the lock's tests: opens the embedded database in the folder given as argument through
// the built package, then prints `open <pid>`, or `refused <pid> <message>` if another process holds the folder.
// Lines on stdin drive it: `create NAME` inserts a pet and prints `created <id>` once committed, `count` prints
// `count <n>`, `close` closes the database and exits.
import { createInterface } from 'node:readline';
import { DataDirInUseError, openEmbeddedDatabase } from '../../dist/index.js';

let database;
try {
  database = await openEmbeddedDatabase(process.argv[2]);
} catch (error) {
  if (!(error instanceof DataDirInUseError)) throw error;
  process.stdout.write(`refused ${error.pid} ${error.message}\n`);
  process.exit(3);
}
process.stdout.write(`open ${process.pid}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.split(' ');
  if (command === 'create') {
    const { id } = await database.db
      .insertInto('pets')
      .values({ name: argument, category_id: 1, status: 'available' })
      .returning('id')
      .executeTakeFirstOrThrow();
    process.stdout.write(`created ${id}\n`);
  } else if (command === 'count') {
    const { n } = await database.db.selectFrom('pets').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    process.stdout.write(`count ${n}\n`);
  } else if (command === 'close') {
    await database.close();
    process.exit(0);
  }
}
