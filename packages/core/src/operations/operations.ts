import { createPet } from './create-pet.js';
import { deletePet } from './delete-pet.js';
import { getPet } from './get-pet.js';
import { getUsage } from './get-usage.js';
import { listPets } from './list-pets.js';
import { updatePet } from './update-pet.js';
import { placeOrder } from './place-order.js';
import { getOrder } from './get-order.js';
import { listOrders } from './list-orders.js';
import { completeOrder } from './complete-order.js';
import { cancelOrder } from './cancel-order.js';
import { getInventory } from './get-inventory.js';
import { createWebhook } from './create-webhook.js';
import { listWebhooks } from './list-webhooks.js';
import { getWebhook } from './get-webhook.js';
import { deleteWebhook } from './delete-webhook.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { listWebhookDeliveries } from './list-webhook-deliveries.js';
import { redeliverWebhook } from './redeliver-webhook.js';

export type { Deprecation, OperationDefinition, OperationEnv, Stability } from './operation.js';

/**
 * Every operation of the interface, by operationId: adding one here (and its file) adds its REST route, its tRPC
 * procedure, its place in the OpenAPI document and its typed method on every store (CONTRIBUTING.md).
 * @example operations.createPet.successStatus // 201
 */
export const operations = Object.freeze({
  listPets,
  createPet,
  getPet,
  updatePet,
  deletePet,
  getUsage,
  placeOrder,
  getOrder,
  listOrders,
  completeOrder,
  cancelOrder,
  getInventory,
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  redeliverWebhook,
});

/** The name of one of the operations. */
export type OperationId = keyof typeof operations;
