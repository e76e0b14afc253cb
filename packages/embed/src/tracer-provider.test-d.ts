import type { TracerProvider } from '@opentelemetry/api';
import type { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { TracerProviderLike } from '@petstore/core';
import { describe, expectTypeOf, it } from 'vitest';
import type { HandlerOptions, OpenPetStoreOptions } from './index.js';

describe('the tracerProvider options', () => {
  it("take OpenTelemetry's TracerProvider and an SDK's provider, though the types never name the API", () => {
    expectTypeOf<TracerProvider>().toExtend<TracerProviderLike>();
    expectTypeOf<BasicTracerProvider>().toExtend<TracerProviderLike>();
    expectTypeOf<TracerProvider>().toExtend<NonNullable<OpenPetStoreOptions['tracerProvider']>>();
    expectTypeOf<TracerProvider>().toExtend<NonNullable<HandlerOptions['tracerProvider']>>();
    expectTypeOf<false>().toExtend<NonNullable<HandlerOptions['tracerProvider']>>();
    expectTypeOf<{ getSpan(): object }>().not.toExtend<TracerProviderLike>();
  });
});
