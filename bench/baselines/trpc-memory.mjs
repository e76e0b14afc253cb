// Baseline: a plain tRPC standalone server with one query, `pets.list`, returning the same animals from memory.
// Its input is checked with a zod object as any tRPC procedure would be; nothing else happens.
// DATA_FILE holds the animals (the service's list response body); PORT, HOST say where to listen.
import { readFileSync } from 'node:fs';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { z } from 'zod';

const pets = JSON.parse(readFileSync(process.env.DATA_FILE, 'utf8'));

const t = initTRPC.create();
const appRouter = t.router({
  pets: t.router({
    list: t.procedure
      .input(
        z.object({
          limit: z.number().int().min(1).max(100).default(20),
          status: z.enum(['available', 'pending', 'sold']).optional(),
          cursor: z.string().optional(),
        }),
      )
      .query(() => pets),
  }),
});

const server = createHTTPServer({ router: appRouter, basePath: '/trpc/' });
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => server.close(() => process.exit(0)).closeIdleConnections());
