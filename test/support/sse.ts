/** A minimal Server-Sent Events reader over fetch, for tests. */
export interface SseEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: string;
}

export interface SseConnection {
  /** The next event (comments skipped); rejects when the stream ends first. */
  next(): Promise<SseEvent>;
  /** Keep-alive comments seen so far. */
  comments(): number;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body)
    throw new Error(`event stream answered ${res.status}: ${await res.text()}`);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let comments = 0;
  const queued: SseEvent[] = [];
  const parseBlocks = () => {
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments++;
        const colon = line.indexOf(': ');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2);
      }
      if (fields.event && fields.data !== undefined) {
        queued.push({ event: fields.event, data: fields.data, ...(fields.id ? { id: fields.id } : {}) });
      }
      end = buffer.indexOf('\n\n');
    }
  };
  return {
    async next() {
      while (queued.length === 0) {
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended');
        buffer += value;
        parseBlocks();
      }
      return queued.shift()!;
    },
    comments: () => comments,
    close: () => controller.abort(),
  };
}
