import { decodeCursor, encodeCursor } from '../domain/cursor.js';
import { ListOrdersInput, Orders } from '../domain/order-schemas.js';
import { defineOperation } from './operation.js';

/** A page of the caller's orders in ascending id order, optionally by status; `meta.nextCursor` when more exist. */
export const listOrders = defineOperation({
  operationId: 'listOrders',
  procedure: 'listOrders',
  method: 'GET',
  path: '/store/orders',
  summary: 'List orders',
  description:
    'Returns a page of the caller\'s orders in ascending `id` order, optionally filtered by status. When more exist, the `Link` header carries the next page (`rel="next"`).',
  tags: ['store'],
  input: ListOrdersInput,
  output: Orders,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  pageProcedure: 'ordersPage',
  async run(input, { orders, owner, meta }) {
    const afterId = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
    const rows = await orders.list({ owner, status: input.status, afterId, limit: input.limit + 1 });
    if (rows.length > input.limit) {
      rows.length = input.limit;
      meta.nextCursor = encodeCursor(rows[rows.length - 1]!.id);
    }
    return rows;
  },
});
