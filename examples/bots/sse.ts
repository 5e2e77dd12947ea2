/** A minimal Server-Sent Events reader over fetch (Node 20 has no EventSource). */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Reads `text/event-stream` blocks from a response body: yields each event, and calls `onComment`
 * for comment lines (keep-alives).
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onComment?: () => void,
): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) onComment?.();
          const colon = line.indexOf(':');
          if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
        }
        if (fields.event && fields.data !== undefined) {
          yield { event: fields.event, data: fields.data, ...(fields.id ? { id: fields.id } : {}) };
        }
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
}
