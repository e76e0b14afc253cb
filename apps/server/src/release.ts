import { version } from './version.js';

/** How this release names itself in the database it opens (`petstore_release`), and to a release older than it. */
export const release = `@petstore/server@${version}`;
