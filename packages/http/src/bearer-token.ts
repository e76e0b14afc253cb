/**
 * The token of an `Authorization: Bearer <token>` header; undefined when there is no bearer credential.
 * @example bearerToken('Bearer abc') // 'abc'
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization ? /^bearer(?:[ \t]+(.*))?$/i.exec(authorization) : null;
  const token = match?.[1]?.trim();
  return token || undefined;
}
