import type { ResolveHost } from './targets.js';

/** One POST of a delivery. */
export interface Sending {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Aborts the send: its time is up (15 s, DNS included), or the instance stops. */
  signal: AbortSignal;
}

/** Posts a delivery; answers the response's status, or throws (a refused target as `TargetRefusedError`). */
export type SendDelivery = (sending: Sending) => Promise<number>;

/**
 * How a store reaches webhook targets (`@petstore/drivers`' `createWebhookTransport` over `node:http(s)`): names
 * resolved for the target rule, and deliveries posted, each new connection checked by the rule as it connects.
 */
export interface WebhookTransport {
  readonly resolve: ResolveHost;
  readonly send: SendDelivery;
  /** Ends its connections. */
  close(): void;
}
