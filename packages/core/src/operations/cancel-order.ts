import { Order, OrderIdInput } from '../domain/order-schemas.js';
import { closeOrder } from './close-order.js';
import { defineOperation } from './operation.js';

/** Cancels a placed order: its animal is `available` again. */
export const cancelOrder = defineOperation({
  operationId: 'cancelOrder',
  procedure: 'cancelOrder',
  method: 'DELETE',
  path: '/store/orders/{orderId}',
  summary: 'Cancel an order',
  description: 'Cancels a `placed` order of the caller\'s: the order becomes `cancelled` and its animal `available` again. Any other state is 409 `order_not_open`.',
  tags: ['store'],
  input: OrderIdInput,
  output: Order,
  successStatus: 200,
  writes: true,
  stability: 'experimental',
  run: ({ orderId }, env) => closeOrder(env, orderId, { status: 'cancelled', petStatus: 'available' }),
});
