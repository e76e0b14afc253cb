/*
 * `@petstore/cli/admin-channel`: the admin channel of a Pet Store service on an embedded data folder, where it lives
 * and how the key tool reaches it; the service's listener uses the same places and rules.
 */
export {
  ADMIN_FOLDER,
  adminChannelFolders,
  preparePrivateFolder,
  readTrustedToken,
  writeToken,
  type AdminChannelFolder,
} from './admin-channel-folder.js';
export { connectAdminChannel, reviveDates, type AdminClient, type DomainAdmin, type KeyAdmin } from './admin-channel-client.js';
export type { WebhookAdmin } from '@petstore/core';
