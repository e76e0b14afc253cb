import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { appRouter } from './index.js';

describe('the exported appRouter', () => {
  it("does not compile in a host's router, and throws with the fix when that router is made", () => {
    const t = initTRPC.create();
    // @ts-expect-error appRouter is the service's own router: in your tRPC server use createPetsRouter(…)
    expect(() => t.router({ petstore: appRouter })).toThrow(/mount createPetsRouter\(t\.procedure, \{ store \}\) instead/);
  });

  it('stays inspectable (a symbol asked is no use of it)', () => {
    expect(() => String(Object.prototype.toString.call(appRouter))).not.toThrow();
  });
});
