import { z } from 'zod';
import { Inventory } from '../domain/order-schemas.js';
import { defineOperation } from './operation.js';

/** How many animals have each status, served from the page cache: read often, changed rarely. */
export const getInventory = defineOperation({
  operationId: 'getInventory',
  procedure: 'inventory',
  method: 'GET',
  path: '/store/inventory',
  summary: 'Count the animals by status',
  description: 'Returns how many animals of the whole catalogue are `available`, `pending` and `sold`.',
  tags: ['store'],
  input: z.strictObject({}),
  output: Inventory,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  run: (_input, { orders, cached }) => cached('inventory', () => orders.inventory()),
});
