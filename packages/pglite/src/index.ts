export { ADMIN_FOLDER } from './admin-folder.js';
export { DataDirInUseError, LOCK_FOLDER, lockDataDir, type DataDirLock } from './data-dir-lock.js';
export { openEmbeddedDatabase, restoreDataDir, type EmbeddedDatabase, type EmbeddedOptions } from './open-embedded.js';
export { pgliteTemplate } from './pglite-template.js';
