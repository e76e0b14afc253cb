/** Where a delivery stands, as `webhooks deliveries --status` takes it (the store's own list; kept here so the command line loads no store). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The most deliveries `webhooks deliveries` prints at once. */
export const MAX_DELIVERIES = 1000;
const DEFAULT_DELIVERIES = 20;

/** A `webhooks` command of either key tool, every value checked: `petstore webhooks …` and `npx @petstore/cli webhooks …`. */
export type WebhookCommand =
  | { name: 'webhooks list'; json: boolean }
  | { name: 'webhooks deliveries'; webhookId: number; status: DeliveryStatus | undefined; limit: number; json: boolean }
  | { name: 'webhooks redeliver'; webhookId: number; deliveryId: number };

/** The options of `webhooks deliveries`, for a tool's help: name, value (none for a flag) and text. */
export const DELIVERIES_OPTIONS: readonly (readonly [name: string, value: string | undefined, text: string])[] = [
  ['status', 'STATUS', `only deliveries that are ${DELIVERY_STATUSES.join(', ')}`],
  ['limit', 'N', `how many, newest first (default ${DEFAULT_DELIVERIES}, at most ${MAX_DELIVERIES})`],
  ['json', undefined, 'print JSON instead of a table'],
];

const wholeId = (what: string, value: string | undefined): number => {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new Error(`${what} must be a whole number from 1 (see "webhooks ${what === 'WEBHOOK_ID' ? 'list' : 'deliveries WEBHOOK_ID'}"), not ${JSON.stringify(value ?? '')}.`);
  }
  return Number(value);
};

/**
 * Checks a `webhooks` command's arguments and options as a command line gives them; throws an Error saying what is
 * wrong (each tool turns it into its usage error).
 * @example webhookCommand('deliveries', ['12'], { status: 'failed' }) // { name: 'webhooks deliveries', webhookId: 12, … }
 */
export function webhookCommand(
  name: string,
  args: readonly string[],
  values: { status?: string | undefined; limit?: string | undefined; json?: boolean | undefined },
): WebhookCommand {
  switch (name) {
    case 'list':
      return { name: 'webhooks list', json: values.json === true };
    case 'deliveries': {
      const status = values.status;
      if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
        throw new Error(`--status must be one of ${DELIVERY_STATUSES.join(', ')}, not ${JSON.stringify(status)}.`);
      }
      const limit = values.limit === undefined ? DEFAULT_DELIVERIES : Number(values.limit);
      if (!/^[1-9][0-9]*$/.test(values.limit ?? '1') || limit > MAX_DELIVERIES) {
        throw new Error(`--limit must be a whole number from 1 to ${MAX_DELIVERIES}, not ${JSON.stringify(values.limit)}.`);
      }
      return { name: 'webhooks deliveries', webhookId: wholeId('WEBHOOK_ID', args[0]), status: status as DeliveryStatus | undefined, limit, json: values.json === true };
    }
    case 'redeliver':
      return { name: 'webhooks redeliver', webhookId: wholeId('WEBHOOK_ID', args[0]), deliveryId: wholeId('DELIVERY_ID', args[1]) };
    default:
      throw new Error(`Unknown command "webhooks ${name}": use webhooks list, deliveries or redeliver.`);
  }
}
