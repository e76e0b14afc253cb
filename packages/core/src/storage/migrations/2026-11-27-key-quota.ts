import { sql } from 'kysely';
import type { Migration } from '../migration-types.js';
import { tableIn } from '../schema.js';

/**
 * The key whose quota and ban a key shares (`quota_key_id`): a rolled key's successor counts with the first key of
 * its rotation (DECISIONS "Hostile clients and overload"). Null: its own. Rotations made before are filled in.
 */
export const keyQuota = (schema: string | undefined): Migration => ({
  async up(db) {
    const keys = tableIn(schema, 'api_keys');
    await sql`alter table ${keys} add column quota_key_id bigint`.execute(db);
    await sql`
      with recursive rotation (id, root) as (
        select k.id, k.id from ${keys} k where not exists (select 1 from ${keys} p where p.replaced_by = k.id)
        union all
        select k.replaced_by, rotation.root from rotation join ${keys} k on k.id = rotation.id where k.replaced_by is not null
      )
      update ${keys} set quota_key_id = rotation.root from rotation
      where ${keys}.id = rotation.id and rotation.root <> rotation.id`.execute(db);
  },
});
