import { NewOrder, Order } from '../domain/order-schemas.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import { defineOperation } from './operation.js';

/** Sells one animal: the order is placed and the animal made `pending` in one statement, once whatever the race. */
export const placeOrder = defineOperation({
  operationId: 'placeOrder',
  procedure: 'placeOrder',
  method: 'POST',
  path: '/store/orders',
  summary: 'Place an order for an animal',
  description:
    'Places an order for an `available` animal and makes it `pending`, in one step: of any number of concurrent orders of one animal, exactly one is placed, and the others get 409 `pet_not_available`. The order is the caller\'s (its key and the keys it is rolled into, or the host\'s principal).',
  tags: ['store'],
  input: NewOrder,
  output: Order,
  successStatus: 201,
  writes: true,
  stability: 'experimental',
  async run({ petId }, { orders, pets, owner, now }) {
    const order = await orders.place(petId, owner, now());
    if (order) return order;
    if (!(await pets.findById(petId))) throw new PetStoreError('not_found', `No animal with id ${petId}.`);
    throw new PetStoreError('pet_not_available', `The animal ${petId} is not available: it is pending or sold.`);
  },
});
