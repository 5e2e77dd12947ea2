/** The fields one block of a `text/event-stream` set (a block ends at an empty line). */
export interface SseBlock {
  /** The `event:` field, when the block has one (an event without it is a `message`). */
  readonly event?: string;
  /** The `data:` lines joined by `\n`; absent when the block has none (then it is no event). */
  readonly data?: string;
  /** The `id:` field, when the block has one: the id a reconnect sends as `Last-Event-ID`. */
  readonly id?: string;
  /** The `retry:` field: how long to wait before reconnecting, in milliseconds. */
  readonly retry?: number;
}

/**
 * Reads a `text/event-stream` body (Server-Sent Events, as the WHATWG spec parses them: `\n`, `\r\n`
 * or `\r` line ends, one optional space after the colon, `data` lines joined) and yields each block
 * that set a field. Comment lines (`:` first, the arena's keep-alives) go to `onComment`. An `id`
 * holding a NUL is ignored, as is a `retry` that is not all digits. A last block the stream cut
 * before its empty line is dropped, as a browser drops it.
 *
 * @example
 * for await (const block of readEventStream(response.body)) {
 *   if (block.data !== undefined) console.log(block.event ?? 'message', JSON.parse(block.data));
 * }
 */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  onComment?: (text: string) => void,
): AsyncGenerator<SseBlock> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let block: { event?: string; data?: string[]; id?: string; retry?: number } = {};
  let fields = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      // At the end, a last `\r` held back below can no longer be half of a `\r\n`.
      if (done && !buffer.endsWith('\r')) return;
      buffer += done ? '\n' : value;
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A lone `\r` at the end may be the first half of `\r\n`: wait for the next chunk.
        if (end < 0 || (end === buffer.length - 1 && buffer[end] === '\r')) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (fields > 0) {
            const { data, ...rest } = block;
            yield data === undefined ? rest : { ...rest, data: data.join('\n') };
          }
          block = {};
          fields = 0;
          continue;
        }
        if (line.startsWith(':')) {
          onComment?.(line.slice(1).replace(/^ /, ''));
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'event') block.event = text;
        else if (name === 'data') block.data = [...(block.data ?? []), text];
        else if (name === 'id' && !text.includes('\0')) block.id = text;
        else if (name === 'retry' && /^\d+$/.test(text)) block.retry = Number(text);
        else continue;
        fields++;
      }
    }
  } finally {
    // Cancels the body too when the reader stops early (a `break`, a throw in the loop).
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
