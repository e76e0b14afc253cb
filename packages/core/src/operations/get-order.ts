import { Order, OrderIdInput } from '../domain/order-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** One order of the caller's; anyone else's is 404, never 403. */
export const getOrder = defineOperation({
  operationId: 'getOrder',
  procedure: 'getOrder',
  method: 'GET',
  path: '/store/orders/{orderId}',
  summary: 'Get an order',
  description: 'Returns one order of the caller\'s. An order of anyone else is 404, as one that does not exist.',
  tags: ['store'],
  input: OrderIdInput,
  output: Order,
  successStatus: 200,
  writes: false,
  stability: 'experimental',
  async run({ orderId }, { orders, owner }) {
    const order = await orders.find(orderId, owner);
    if (!order) throw new PetStoreError('not_found', `No order with id ${orderId}.`);
    return order;
  },
});
