import { Webhooks } from '../domain/webhook-schemas.js';
import { z } from 'zod';
import { defineOperation } from './operation.js';

/** The caller's webhook endpoints (at most 10), without their secrets. */
export const listWebhooks = defineOperation({
  operationId: 'listWebhooks',
  procedure: 'listWebhooks',
  method: 'GET',
  path: '/webhooks',
  summary: 'List webhook endpoints',
  description: "Returns the caller's webhook endpoints (at most 10) in ascending `id` order, without their secrets.",
  tags: ['webhooks'],
  input: z.strictObject({}),
  output: Webhooks,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  run: (_input, { webhooks, owner }) => webhooks.list(owner),
});
