import type { Order } from '../domain/order-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { Closing } from '../storage/order-repository.js';
import type { OperationEnv } from './operation.js';

/**
 * Closes a placed order of the caller's (its pet sold or available again) in one statement, so that of a complete and
 * a cancel that race exactly one is done; the others get 409 `order_not_open`, and anyone else's order is 404.
 * @example await closeOrder(env, orderId, { status: 'completed', petStatus: 'sold' })
 */
export async function closeOrder({ orders, owner, now }: OperationEnv, orderId: number, closing: Closing): Promise<Order> {
  const closed = await orders.close(orderId, owner, closing, now());
  if (closed) return closed;
  const order = await orders.find(orderId, owner);
  if (!order) throw new PetStoreError('not_found', `No order with id ${orderId}.`);
  throw new PetStoreError('order_not_open', `The order ${orderId} is ${order.status}, no longer placed.`);
}
