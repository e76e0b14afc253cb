/**
 * The folder in a data folder that holds a host's private runtime files (the service's admin channel: a socket and
 * its token, when `$XDG_RUNTIME_DIR` is not set). Never part of a backup, never restored: a socket cannot be copied,
 * and a token belongs to the process that wrote it.
 * @example join(dataDir, ADMIN_FOLDER) // './.petstore-data/petstore.admin'
 */
export const ADMIN_FOLDER = 'petstore.admin';
