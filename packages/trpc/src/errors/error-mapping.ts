import { TRPCError, type TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { errorCodes, invalidRequest, PetStoreError, toPetStoreError, type ErrorCode, type ValidationIssue } from '@petstore/core';

/** tRPC's own failures (outside the core) and the core code each one is answered with. */
const trpcOwnCodes: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: 'invalid_request',
  PARSE_ERROR: 'malformed_json',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'method_not_allowed',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
};

const issuesOf = (cause: unknown): ValidationIssue[] | undefined => {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) ? (issues as ValidationIssue[]) : undefined;
};

function fromTrpc(error: TRPCError): PetStoreError {
  const issues = issuesOf(error.cause);
  if (error.code === 'BAD_REQUEST' && issues) {
    return invalidRequest(issues, { cause: error });
  }
  if (error.cause instanceof SyntaxError) return new PetStoreError('malformed_json', undefined, { cause: error });
  const code = trpcOwnCodes[error.code];
  if (!code) return toPetStoreError(error);
  return new PetStoreError(code, code === 'invalid_request' ? error.message : undefined, { cause: error });
}

/**
 * The PetStoreError behind anything thrown: itself, the cause of a TRPCError, or tRPC's own failure in core terms.
 * @example petStoreErrorOf(new TRPCError({ code: 'PARSE_ERROR' })).code // 'malformed_json'
 */
export function petStoreErrorOf(error: unknown): PetStoreError {
  if (error instanceof PetStoreError) return error;
  if (error instanceof SyntaxError) return new PetStoreError('malformed_json', undefined, { cause: error });
  if (error instanceof TRPCError) {
    return error.cause instanceof PetStoreError ? error.cause : fromTrpc(error);
  }
  return toPetStoreError(error);
}

/**
 * Anything thrown as a TRPCError whose code comes from the core table and whose cause is the PetStoreError.
 * @example toTrpcError(new PetStoreError('gone')).code // 'NOT_FOUND'
 */
export function toTrpcError(error: unknown): TRPCError {
  const failure = petStoreErrorOf(error);
  const code = errorCodes[failure.code].trpc;
  if (error instanceof TRPCError && error.cause === failure && error.code === code) return error;
  return new TRPCError({ code, message: failure.message, cause: failure });
}

/**
 * The PetStoreError a failure carries, if any: the error itself, or the cause of the TRPCError tRPC wrapped it in
 * (in a pets procedure, or thrown by a host's own procedure). Undefined for every other error.
 * @example petStoreErrorIn(new TRPCError({ code: 'UNAUTHORIZED' })) // undefined
 */
export function petStoreErrorIn(error: unknown): PetStoreError | undefined {
  if (error instanceof PetStoreError) return error;
  if (error instanceof TRPCError && error.cause instanceof PetStoreError) return error.cause;
  return undefined;
}
