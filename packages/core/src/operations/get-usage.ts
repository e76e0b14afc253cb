import { z } from 'zod';
import { Usage } from '../domain/usage-schemas.js';
import { defineOperation } from './operation.js';

/** DECISIONS "Usage": the caller's plan, windows, ban and today's counts, never counted against the plan's quota. */
export const getUsage = defineOperation({
  operationId: 'getUsage',
  procedure: 'usage',
  method: 'GET',
  path: '/usage',
  summary: 'Where the caller stands',
  description:
    "Returns the caller's plan, each window of its quota (limit, remaining, reset), its ban and today's requests by outcome. Not counted against the plan's quota, and limited to 120 calls a minute per key of its own.",
  tags: ['usage'],
  input: z.strictObject({}),
  output: Usage,
  successStatus: 200,
  writes: false,
  stability: 'beta',
  ownLimitPerMinute: 120,
  run: (_input, { standing }) => standing(),
});
