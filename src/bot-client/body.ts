import type { Readable } from 'node:stream';

/** What `readCapped` got: the bytes read, and whether the body went past the cap. */
export interface CappedBody {
  readonly bytes: Buffer;
  /** True when the body was longer than the cap; `bytes` then holds only what arrived up to it. */
  readonly overflow: boolean;
}

/**
 * Reads a response body up to `capBytes`. Past the cap it stops and destroys the stream, so a huge
 * body is never buffered (undici then drops the connection rather than reading the rest). Rejects
 * with the stream's error (an abort, a reset) like the stream does.
 *
 * @example
 * const { bytes, overflow } = await readCapped(response.body, 64 * 1024);
 */
export async function readCapped(body: Readable, capBytes: number): Promise<CappedBody> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buffer: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (total + buffer.length > capBytes) {
      chunks.push(buffer.subarray(0, capBytes - total));
      body.destroy();
      return { bytes: Buffer.concat(chunks), overflow: true };
    }
    chunks.push(buffer);
    total += buffer.length;
  }
  return { bytes: Buffer.concat(chunks), overflow: false };
}

/**
 * The first `maxBytes` of a body as text, for fault records. Invalid UTF-8 (or a character cut at the
 * end) becomes U+FFFD; an empty body gives `undefined`.
 *
 * @example
 * excerpt(Buffer.from('Internal Server Error'), 200); // 'Internal Server Error'
 */
export function excerpt(bytes: Buffer, maxBytes: number): string | undefined {
  if (bytes.length === 0) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, maxBytes));
}
