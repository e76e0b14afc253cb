import type { Outcome } from '@petstore/core';
import type { Context } from './context.js';

/**
 * Records what an outcome's response carries besides its body and returns its data. For a page of a list,
 * `page` names the procedure and input so the next page's URL can be linked.
 * @example return reply(ctx, await ctx.store.getPet(input, ctx.call))
 */
export function reply<T>(ctx: Context, outcome: Outcome<T>, page?: { path: string; input: object }): T {
  Object.assign(ctx.response.meta, outcome.meta);
  const cursor = outcome.meta.nextCursor;
  if (page && cursor !== undefined) {
    const input = encodeURIComponent(JSON.stringify({ ...page.input, cursor }));
    ctx.response.nextUrl = `${ctx.links.trpcUrl}/${page.path}?input=${input}`;
  }
  return outcome.data;
}
