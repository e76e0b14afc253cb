import { z } from 'zod';
import { idField, MAX_ID, pageFields } from './pet-schemas.js';

/** Where an order stands: `placed` until it is completed (the pet sold) or cancelled (the pet available again). */
export const OrderStatus = z.enum(['placed', 'completed', 'cancelled']).meta({ id: 'OrderStatus', description: 'Where the order stands.' });
export type OrderStatus = z.infer<typeof OrderStatus>;

/** An order as returned. */
export const Order = z
  .strictObject({
    id: idField('Unique identifier assigned by the service when the order is placed.'),
    petId: idField('The animal the order sells.'),
    status: OrderStatus,
    placedAt: z.string().meta({
      description: 'When the order was placed (RFC 3339, UTC).',
      format: 'date-time',
      maxLength: 24,
      example: '2026-12-03T10:00:00.000Z',
    }),
  })
  .meta({ id: 'Order' });
export type Order = z.infer<typeof Order>;

/** A page of orders (`maxItems` documents the page bound; outputs are not checked). */
export const Orders = z.array(Order).meta({ id: 'Orders', maxItems: 100 });

/** The body of `placeOrder`: the animal to buy. */
export const NewOrder = z.strictObject({ petId: idField('The animal to buy; it must be `available`.') }).meta({ id: 'NewOrder' });
export type NewOrder = z.input<typeof NewOrder>;

/** The input of the operations on one order: its id (from the path). */
export const OrderIdInput = z.strictObject({ orderId: idField('The identifier of the order.') });

const page = pageFields('orders');

/** The input of `listOrders`, as typed callers send it. */
export const ListOrdersInput = z.strictObject({
  limit: page.limit.default(20),
  status: OrderStatus.optional().meta({ description: 'Return only orders with this status.' }),
  cursor: page.cursor,
});

const count = (status: string) => z.int().min(0).max(MAX_ID).meta({ description: `Animals ${status}.`, format: 'int64', example: 1 });

/** How many animals of the catalogue have each status. */
export const Inventory = z
  .strictObject({ available: count('available'), pending: count('pending'), sold: count('sold') })
  .meta({ id: 'Inventory', description: 'How many animals of the catalogue have each status.' });
export type Inventory = z.infer<typeof Inventory>;
