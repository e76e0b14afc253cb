import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Where the admin channel lives: a folder only the service's user can enter, under `$XDG_RUNTIME_DIR` when set (one
 * per data folder, named from its real path), else `petstore.admin` in the data folder (which backups leave out).
 * Nothing in it is created, written or trusted through a link, and the key tool trusts a folder only when it, its
 * socket and its token belong to the service's user and nobody else may enter or read them.
 */
export const ADMIN_FOLDER = 'petstore.admin'; // the name @petstore/pglite leaves out of backups (its ADMIN_FOLDER)
const SOCKET_FILE = 'admin.sock';
const TOKEN_FILE = 'admin.token';
// sun_path holds 108 bytes with its terminating NUL: a longer socket path cannot be listened on.
const MAX_SOCKET_PATH = 107;

/** One place the admin channel may use: its folder, and the socket and token in it. */
export interface AdminChannelFolder {
  folder: string;
  socketPath: string;
  tokenPath: string;
}

/**
 * The places the admin channel of the service on `dataDir` may use, in the order they are tried.
 * @example const [first] = await adminChannelFolders('./.petstore-data', '/run/user/1000')
 */
export async function adminChannelFolders(dataDir: string, runtimeDir?: string): Promise<AdminChannelFolder[]> {
  const real = await realpath(dataDir);
  const name = createHash('sha256').update(real).digest('hex').slice(0, 16);
  const folders = [...(runtimeDir ? [join(runtimeDir, `petstore-${name}`)] : []), join(real, ADMIN_FOLDER)];
  return folders.map((folder) => ({ folder, socketPath: join(folder, SOCKET_FILE), tokenPath: join(folder, TOKEN_FILE) }));
}

const ownUid = () => process.getuid?.() ?? -1;

/** The error of opening a path without following links, in words (Linux says ENOTDIR for a link to a folder). */
async function inWords(path: string, error: unknown): Promise<Error> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ELOOP' && code !== 'ENOTDIR') return error as Error;
  const link = await lstat(path).then((stats) => stats.isSymbolicLink(), () => false);
  return new Error(link ? 'it is a symbolic link' : 'it is not a folder');
}

/**
 * Makes the place ready for a new listener: the folder created 0700 when missing (an existing one must be a real
 * folder owned by this process's user; it is set back to 0700, checked on an open handle so nothing can swap it),
 * and the socket and token a process that did not close left behind removed (unlink never follows a link). Throws,
 * saying why, when the place cannot be made private.
 * @example await preparePrivateFolder(place); server.listen(place.socketPath)
 */
export async function preparePrivateFolder(place: AdminChannelFolder): Promise<void> {
  if (Buffer.byteLength(place.socketPath) > MAX_SOCKET_PATH) throw new Error(`its socket path is longer than ${MAX_SOCKET_PATH} bytes`);
  await mkdir(place.folder, { mode: 0o700 }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  const handle = await open(place.folder, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(async (error: unknown) => {
    throw await inWords(place.folder, error);
  });
  try {
    const stats = await handle.stat();
    if (stats.uid !== ownUid()) throw new Error(`it belongs to user ${stats.uid}, not to this service's user (${ownUid()})`);
    if ((stats.mode & 0o777) !== 0o700) await handle.chmod(0o700);
  } finally {
    await handle.close();
  }
  await rm(place.socketPath, { force: true });
  await rm(place.tokenPath, { force: true });
}

/**
 * Writes the token into a prepared folder: a new file (never an existing one, never through a link), 0600.
 * @example await writeToken(place, token)
 */
export async function writeToken(place: AdminChannelFolder, token: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(place.tokenPath, flags, 0o600);
  try {
    await handle.writeFile(token);
  } finally {
    await handle.close();
  }
}

/** Whether a file system entry may be trusted: owned by a trusted user, and nobody else may write (or read) it. */
function trustedEntry(what: string, entry: { uid: number; mode: number }, owners: ReadonlySet<number>, hidden: boolean) {
  if (!owners.has(entry.uid)) throw new Error(`its ${what} belongs to user ${entry.uid}, not to the service's user`);
  if ((entry.mode & (hidden ? 0o077 : 0o022)) !== 0) throw new Error(`its ${what} may be ${hidden ? 'entered or read' : 'changed'} by other users`);
}

/**
 * Reads the token of a running service's channel, once the folder, the socket and the token are found to belong to
 * the service's user (the owner of the data folder; root and the tool's own user are trusted too) and to be closed to
 * everyone else; throws, saying why, otherwise. A token is never read through a link.
 * @example const token = await readTrustedToken(place, './.petstore-data')
 */
export async function readTrustedToken(place: AdminChannelFolder, dataDir: string): Promise<string> {
  const owners = new Set([0, ownUid(), (await stat(dataDir)).uid]);
  const folder = await lstat(place.folder);
  if (!folder.isDirectory()) throw new Error(folder.isSymbolicLink() ? 'its folder is a symbolic link' : 'its folder is not a folder');
  trustedEntry('folder', folder, owners, true);
  const socket = await lstat(place.socketPath);
  if (!socket.isSocket()) throw new Error('its socket is not a socket');
  trustedEntry('socket', socket, owners, false);
  const handle = await open(place.tokenPath, constants.O_RDONLY | constants.O_NOFOLLOW).catch(async (error: unknown) => {
    throw await inWords(place.tokenPath, error);
  });
  try {
    const token = await handle.stat();
    if (!token.isFile()) throw new Error('its token is not a file');
    trustedEntry('token', token, owners, true);
    return (await handle.readFile('utf8')).trim();
  } finally {
    await handle.close();
  }
}
