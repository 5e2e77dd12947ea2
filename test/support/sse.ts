import { readSse, type SseEvent } from '../../examples/bots/sse.ts';

export interface SseConnection {
  /** The next event (comments skipped); rejects when the stream ends first. */
  next(): Promise<SseEvent>;
  /** Keep-alive comments seen so far. */
  comments(): number;
  /** Resolves at the next keep-alive comment (read while a `next()` is pending). */
  nextComment(): Promise<void>;
  close(): void;
}

/** Opens an event stream over fetch, for tests. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  if (res.status !== 200 || !res.body)
    throw new Error(`event stream answered ${res.status}: ${await res.text()}`);
  let comments = 0;
  let commentSeen: (() => void)[] = [];
  const onComment = () => {
    comments++;
    for (const resolve of commentSeen) resolve();
    commentSeen = [];
  };
  // Piped at once, so the body is locked before this returns. fetch cancels the body of a Response
  // that is garbage-collected while its body is neither locked nor read (undici's finalizer), and
  // the lazy generator below holds the body, not the Response: a collection before the test's
  // first `next()` ended the stream cleanly with nothing read (a flake of full runs only).
  const events = readSse(res.body.pipeThrough(new TransformStream()), onComment);
  return {
    async next() {
      const { value, done } = await events.next();
      if (done) throw new Error('event stream ended');
      return value;
    },
    comments: () => comments,
    nextComment: () => new Promise<void>((resolve) => commentSeen.push(resolve)),
    close: () => controller.abort(),
  };
}
