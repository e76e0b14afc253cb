import type { IncomingHttpHeaders } from 'node:http';
import type { Pet, WebhookEvent as ServiceWebhookEvent, WebhookEventType as ServiceWebhookEventType } from '@petstore/core';
import { describe, expectTypeOf, it } from 'vitest';
import { verifyWebhook, type WebhookEvent, type WebhookEventType } from './webhooks.js';

type ServiceOrder = Extract<ServiceWebhookEvent, { type: 'order.placed' }>['data'];

describe('the webhook events’ types', () => {
  it('are the service’s: its event types, and each event’s body as its WebhookEvent schema gives it', () => {
    expectTypeOf<WebhookEventType>().toEqualTypeOf<ServiceWebhookEventType>();
    expectTypeOf<WebhookEvent>().toEqualTypeOf<ServiceWebhookEvent>();
    expectTypeOf(verifyWebhook).returns.toEqualTypeOf<WebhookEvent>();
  });

  it('narrow on type: data is a Pet for pet.*, an Order for order.*', () => {
    const event = verifyWebhook('', {}, 'whsec_c2VjcmV0');
    if (event.type === 'pet.created' || event.type === 'pet.updated' || event.type === 'pet.deleted') {
      expectTypeOf(event.data).toEqualTypeOf<Pet>();
      // @ts-expect-error a pet has no petId
      void event.data.petId;
    } else {
      expectTypeOf(event.type).toEqualTypeOf<'order.placed' | 'order.completed' | 'order.cancelled'>();
      expectTypeOf(event.data).toEqualTypeOf<ServiceOrder>();
      expectTypeOf(event.data.petId).toEqualTypeOf<number>();
    }
    expectTypeOf(event.timestamp).toEqualTypeOf<string>();
    // @ts-expect-error no such event
    void (event.type === 'pet.sold');
  });

  it('take the body as text or bytes, and the headers of Fetch, Node or a plain object', () => {
    expectTypeOf(verifyWebhook).toBeCallableWith(new Uint8Array(), new Headers(), 'whsec_…');
    expectTypeOf(verifyWebhook).toBeCallableWith(Buffer.from('{}'), {} as IncomingHttpHeaders, 'whsec_…');
    expectTypeOf(verifyWebhook).toBeCallableWith('{}', { 'webhook-id': 'evt_1', 'set-cookie': ['a', 'b'], host: undefined }, 'whsec_…');
    // @ts-expect-error a parsed body does not verify
    verifyWebhook({ type: 'pet.created' }, {}, 'whsec_…');
  });
});
