/**
 * A value that must not be used, with the reason as its type: TypeScript names the message wherever the value is used
 * as something else (as kysely's `KyselyTypeError` does).
 */
export interface PetStoreTypeError<Message extends string> {
  readonly __petstoreTypeError__: Message;
}

const MESSAGE =
  "appRouter is the Pet Store service's own router, not one for your tRPC server: its procedures find the store in a " +
  'context only our handlers make, so in your router every call would answer 500. In your own tRPC server mount ' +
  'createPetsRouter(t.procedure, { store }) instead (t.router({ petstore: createPetsRouter(t.procedure, { store }) })); ' +
  'for a typed client of the service, import the type AppRouter.';

type Message = "appRouter is the service's own router: in your tRPC server use createPetsRouter(t.procedure, { store }); for a typed client, the type AppRouter";

/**
 * Not a router to mount: `t.router({ petstore: appRouter })` does not compile, and at run time any use of it throws,
 * when the host's router is made, with the fix. Use `createPetsRouter(t.procedure, { store })` in your own tRPC
 * server, and the type `AppRouter` for a client of the service.
 * @example const router = t.router({ petstore: createPetsRouter(t.procedure, { store }) })
 */
export const appRouter = new Proxy(Object.freeze({}), {
  get(_target, key) {
    // Symbols are the runtime's own questions (util.inspect, Symbol.toStringTag), not a use of the router.
    if (typeof key === 'symbol') return undefined;
    throw new TypeError(MESSAGE);
  },
  has() {
    throw new TypeError(MESSAGE);
  },
  ownKeys() {
    throw new TypeError(MESSAGE);
  },
}) as unknown as PetStoreTypeError<Message>;
