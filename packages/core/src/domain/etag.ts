import { createHash } from 'node:crypto';
import type { ExpectedVersion } from '../storage/pet-repository.js';

/**
 * The strong ETag of one animal at one version (RFC 9110 8.8.3): opaque to clients, it names the animal and the
 * version, so an ETag of one animal never matches another.
 * @example petETag(7, 3) // '"7.3"'
 */
export const petETag = (id: number, version: number) => `"${id}.${version}"`;

/**
 * The strong ETag of a list page: a digest of its body and of whether a next page follows (its `Link`).
 * @example listETag(JSON.stringify(rows), nextCursor)
 */
export function listETag(body: string, nextCursor: string | undefined): string {
  return `"${createHash('sha256').update(body).update(nextCursor === undefined ? '' : `\n${nextCursor}`).digest('base64url').slice(0, 27)}"`;
}

// One entity tag of a list (RFC 9110 8.8.3): `W/` for a weak one, then a quoted string of etagc characters.
const ENTITY_TAG = /^\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/;

/** The entity tags of an `If-Match` or `If-None-Match` field, `*`, or undefined when it is malformed. */
function entityTags(field: string): '*' | { weak: boolean; tag: string }[] | undefined {
  if (field.trim() === '*') return '*';
  const tags: { weak: boolean; tag: string }[] = [];
  let rest = field;
  while (rest.trim() !== '') {
    const found = ENTITY_TAG.exec(rest);
    if (!found) return undefined;
    tags.push({ weak: found[1] !== undefined, tag: found[2]! });
    rest = rest.slice(found[0].length);
    if (tags.length > 100) return undefined;
  }
  return tags;
}

/**
 * Whether `If-None-Match` matches a representation's ETag, by the weak comparison RFC 9110 13.1.2 asks for: `*`,
 * or one of its tags with the same opaque string, weak or not. A malformed field matches nothing.
 * @example noneMatchFails('W/"7.3", "7.4"', '"7.3"') // true: answer 304
 */
export function noneMatchFails(field: string, etag: string): boolean {
  const tags = entityTags(field);
  return tags === '*' || (tags !== undefined && tags.some(({ tag }) => tag === etag));
}

/**
 * The versions of animal `id` an `If-Match` field accepts, by the strong comparison RFC 9110 13.1.1 asks for: `*`
 * (any: the animal exists), or the versions its strong tags name for this animal (weak tags, malformed fields and
 * other animals' tags name none, so nothing matches).
 * @example expectedVersions('"7.3", "8.1"', 7) // [3]
 */
export function expectedVersions(field: string, id: number): ExpectedVersion {
  const tags = entityTags(field);
  if (tags === '*') return '*';
  const versions: number[] = [];
  for (const { weak, tag } of tags ?? []) {
    const found = weak ? null : /^"(\d{1,16})\.(\d{1,16})"$/.exec(tag);
    if (found && Number(found[1]) === id) versions.push(Number(found[2]));
  }
  return versions;
}
