import { readEventStream } from '@reversi-arena/client';

/** One Server-Sent Event, as the tests read an event stream. */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

/**
 * Reads `text/event-stream` events from a response body with the client package's parser: yields each
 * named event with data, and calls `onComment` for comment lines (keep-alives).
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onComment?: () => void,
): AsyncGenerator<SseEvent> {
  for await (const block of readEventStream(body, onComment && (() => onComment()))) {
    if (block.event && block.data !== undefined) {
      yield { event: block.event, data: block.data, ...(block.id ? { id: block.id } : {}) };
    }
  }
}
