import type { ErrorBody } from '@petstore/core';
import type { TRPCDefaultErrorShape, TRPCError } from '@trpc/server';
import { petStoreErrorIn } from './error-mapping.js';
import { trpcErrorShape } from './trpc-envelope.js';

/** What tRPC hands an `errorFormatter` (its context, input and path besides). */
interface FormatterOptions {
  shape: TRPCDefaultErrorShape;
  error: TRPCError;
}

/**
 * The error shape of a host whose formatter is wrapped by {@link withPetStoreErrors}: its own, with the Error body at
 * `data.error` when the error carries one (a host's own errors leave it out).
 */
export type WithPetStoreErrors<TShape> = TShape & { data: { error?: ErrorBody } };

/**
 * A host's `errorFormatter` that also knows the pets procedures' errors: a PetStoreError (from a pets procedure, or
 * thrown in a host's own) gets the documented shape (the Error body at `data.error`, its status as `httpStatus`);
 * every other error goes through the host's own formatter, or tRPC's default shape, unchanged. Its shape's type tells
 * the host's clients of `data.error`.
 * @example initTRPC.context<Ctx>().create({ errorFormatter: withPetStoreErrors(({ shape }) => shape) })
 */
export function withPetStoreErrors(): (opts: FormatterOptions) => WithPetStoreErrors<TRPCDefaultErrorShape>;
export function withPetStoreErrors<TOptions extends FormatterOptions, TShape extends object>(
  formatter: (opts: TOptions) => TShape,
): (opts: TOptions) => WithPetStoreErrors<TShape>;
export function withPetStoreErrors<TOptions extends FormatterOptions, TShape extends object>(formatter?: (opts: TOptions) => TShape) {
  return (opts: TOptions): WithPetStoreErrors<TShape> => {
    const base = (formatter ? formatter(opts) : opts.shape) as WithPetStoreErrors<TShape>;
    const failure = petStoreErrorIn(opts.error);
    if (!failure) return base;
    const ours = trpcErrorShape(failure, opts.shape.data.path);
    return { ...base, ...ours, data: { ...base.data, ...ours.data } };
  };
}
