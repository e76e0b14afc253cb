/** The name of the handlers' tracer, for a host's sampler or span processor. */
export const HTTP_TRACER_NAME = '@petstore/http';
