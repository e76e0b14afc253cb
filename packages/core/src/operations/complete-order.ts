import { Order, OrderIdInput } from '../domain/order-schemas.js';
import { closeOrder } from './close-order.js';
import { defineOperation } from './operation.js';

/** Completes a placed order: the sale is made, and its animal `sold`. */
export const completeOrder = defineOperation({
  operationId: 'completeOrder',
  procedure: 'completeOrder',
  method: 'POST',
  path: '/store/orders/{orderId}/complete',
  summary: 'Complete an order',
  description: 'Completes a `placed` order of the caller\'s: the order becomes `completed` and its animal `sold`. Any other state is 409 `order_not_open`.',
  tags: ['store'],
  input: OrderIdInput,
  output: Order,
  successStatus: 200,
  writes: true,
  stability: 'experimental',
  run: ({ orderId }, env) => closeOrder(env, orderId, { status: 'completed', petStatus: 'sold' }),
});
