// Child process: creates the embedded database in a new folder and exits, so the memory PGlite needs to set up a
// cluster is returned to the system before the service opens the folder for good.
import { PGlite } from '@electric-sql/pglite';
import { pgliteTemplate } from './pglite-template.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: init-data-dir <folder>');
const loadDataDir = await pgliteTemplate();
const db = await PGlite.create(dataDir, loadDataDir ? { loadDataDir } : {});
await db.close();
