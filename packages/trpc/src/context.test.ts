import type { PetStore } from '@petstore/core';
import type { NodeHTTPRequest } from '@trpc/server/adapters/node-http';
import { describe, expect, it } from 'vitest';
import { createContext } from './context.js';

const store = {} as PetStore;
const request = (headers: Record<string, string>, remoteAddress = '10.0.0.7') =>
  ({ headers, socket: { remoteAddress } } as unknown as NodeHTTPRequest);

describe('createContext', () => {
  it('reads the bearer token and the socket address', () => {
    const ctx = createContext({ store, req: request({ authorization: 'Bearer psk_abc' }) });
    expect(ctx.caller).toEqual({ apiKey: 'psk_abc', clientAddress: '10.0.0.7' });
    expect(createContext({ store, req: request({ authorization: 'Basic x' }) }).caller.apiKey).toBeUndefined();
  });

  it('takes the client address it is given over the socket address', () => {
    expect(createContext({ store, req: request({}), clientAddress: '203.0.113.9' }).caller.clientAddress).toBe(
      '203.0.113.9'
    );
  });

  it('links to the public base address and to tRPC beside it', () => {
    const ctx = createContext({
      store,
      req: request({}),
      publicBaseUrl: 'https://example.org/api/v1/',
      basePath: '/rpc',
    });
    expect(ctx.links).toEqual({ baseUrl: 'https://example.org/api/v1', trpcUrl: 'https://example.org/api/rpc' });
  });

  it('links to the Host of the request when no public base address is given', () => {
    const ctx = createContext({ store, req: request({ host: '127.0.0.1:3000' }) });
    expect(ctx.links).toEqual({ baseUrl: 'http://127.0.0.1:3000/v1', trpcUrl: 'http://127.0.0.1:3000/trpc' });
  });
});
