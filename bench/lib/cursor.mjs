// Cursors as the service issues them (packages/core/src/domain/cursor.ts): base64url of "p1." + the id in base 36.

/** The cursor of the page that starts after `id`. */
export const cursorAfter = (id) => Buffer.from(`p1.${id.toString(36)}`).toString('base64url');

/** `count` list paths whose cursors are spread evenly, `step` ids apart, from id 0: a different page each. */
export const cursorPaths = ({ path, count, step }) =>
  Array.from({ length: count }, (_, i) => `${path}&cursor=${cursorAfter(i * step)}`);
