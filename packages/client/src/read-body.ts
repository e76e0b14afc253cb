import { PetStoreApiError } from './pet-store-api-error.js';

const tooLarge = (response: Response, maxBytes: number) =>
  new PetStoreApiError({
    code: 'response_too_large',
    status: response.status,
    message: `The answer's body is longer than maxResponseBytes (${maxBytes} bytes); the client stopped reading it.`,
    requestId: response.headers.get('x-request-id') ?? undefined,
  });

/**
 * An answer's body as text, read as it arrives and given up past `maxBytes` (the stream is cancelled, so the rest
 * is never received): one answer cannot take the caller's memory. Throws a `response_too_large` {@link PetStoreApiError}.
 * @example const text = await readBody(response, 10 * 1024 * 1024)
 */
export async function readBody(response: Response, maxBytes: number): Promise<string> {
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(response, maxBytes);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(response, maxBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * A response whose body errors past `maxBytes` (with a `response_too_large` {@link PetStoreApiError}), for readers
 * the client does not run itself (a tRPC link's `res.json()`).
 * @example const fetch = async (url, init) => boundedResponse(await globalThis.fetch(url, init), 10 * 1024 * 1024)
 */
export function boundedResponse(response: Response, maxBytes: number): Response {
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge(response, maxBytes);
  }
  if (response.body === null) return response;
  let bytes = 0;
  const bounded = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > maxBytes) controller.error(tooLarge(response, maxBytes));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
}
