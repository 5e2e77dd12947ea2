/** Shared: `decode` without `stream` keeps no state between calls. */
const utf8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The first `maxBytes` of a body as text, for fault records. Invalid UTF-8 (or a character cut at the
 * end) becomes U+FFFD; an empty body gives `undefined`.
 *
 * @example
 * excerpt(Buffer.from('Internal Server Error'), 200); // 'Internal Server Error'
 */
export function excerpt(bytes: Buffer, maxBytes: number): string | undefined {
  if (bytes.length === 0) return undefined;
  return utf8.decode(bytes.subarray(0, maxBytes));
}
