import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `bytes` to `file` readable and writable by its owner only (0600, whatever the umask or an earlier file's
 * mode): into a new file beside it (never through a link planted at a guessable name), then renamed over `file`, so
 * the file is never seen half-written and a link at `file` is replaced rather than followed.
 * @example await writePrivateFile('petstore-backup.tar.gz', bytes)
 */
export async function writePrivateFile(file: string, bytes: Uint8Array): Promise<void> {
  const draft = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
    await handle.close();
    await rename(draft, file);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(draft, { force: true });
    throw error;
  }
}
