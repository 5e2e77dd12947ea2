import type { Response } from 'express';
import { BoundedMap } from '../support/bounded-map.ts';

/**
 * A JSON answer kept ready to send: the document, its serialized body as bytes (express would
 * encode a string of 1 kB or more into a new Buffer on every send) and, once sent, its ETag.
 */
export interface JsonAnswer {
  readonly value: unknown;
  readonly body: Buffer;
  etag?: string;
}

export function jsonAnswer(value: unknown): JsonAnswer {
  return { value, body: Buffer.from(JSON.stringify(value)) };
}

/**
 * Sends a JSON answer as `res.json` would (same body, Content-Type and weak ETag, so 304s and
 * HEAD work alike) without serializing or hashing it again. When responses are validated against
 * openapi.yaml (tests, development) it goes through `res.json`, which the validator wraps.
 */
export function sendJson(res: Response, answer: JsonAnswer, validated: boolean): void {
  if (validated) {
    res.json(answer.value);
    return;
  }
  if (answer.etag === undefined) {
    const etagOf = res.app.get('etag fn') as
      | ((body: string | Buffer, encoding: string) => string)
      | undefined;
    answer.etag = etagOf ? etagOf(answer.body, 'utf8') : '';
  }
  // What res.send does for a Buffer with these headers set, without its checks for other bodies.
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (answer.etag !== '') res.setHeader('ETag', answer.etag);
  if (res.req.fresh) {
    res.statusCode = 304;
    res.removeHeader('Content-Type');
    res.end();
    return;
  }
  res.setHeader('Content-Length', answer.body.length);
  if (res.req.method === 'HEAD') res.end();
  else res.end(answer.body);
}

interface Entry {
  answer: Promise<JsonAnswer>;
  /** When the entry stops being served (on `now`'s scale); Infinity while it loads. */
  expiresAt: number;
}

/**
 * Answers kept in memory, by key, for `ttlMs` (Infinity: answers that never change, such as a
 * finished match), at most `maxEntries` of them (the least recently used go first). A load may
 * decline to be kept (`keep: false`): a running match is served fresh every time. A failed load is
 * not kept. With `shareLoads`, concurrent requests for a missing key share one load (an answer then
 * may predate a request by one load's time, which a TTL cache allows anyway); without it, only a
 * kept answer is shared, so a client always reads its own writes.
 *
 * @example
 * const pages = new AnswerCache({ ttlMs: 1000, maxEntries: 100, shareLoads: true });
 * const answer = await pages.get('0:50', async () => ({ value: await readPage(0, 50), keep: true }));
 */
export class AnswerCache {
  /** Least recently used first: a hit is deleted and set again. */
  private readonly entries: BoundedMap<string, Entry>;
  private readonly now: () => number;

  constructor(
    private readonly options: {
      readonly ttlMs: number;
      readonly maxEntries: number;
      readonly shareLoads: boolean;
      /** Milliseconds on a monotonic scale; performance.now() by default. */
      readonly now?: () => number;
    },
  ) {
    this.now = options.now ?? (() => performance.now());
    this.entries = new BoundedMap(options.maxEntries);
  }

  /**
   * The answer kept under `key` (or loading, with `shareLoads`), if any, without loading one. Only
   * what a route has checked is ever kept: a route may look up its raw parameter here first and
   * parse it only on a miss.
   */
  kept(key: string): Promise<JsonAnswer> | undefined {
    const found = this.entries.get(key);
    if (found === undefined || found.expiresAt <= this.now()) return undefined;
    // Most recently used last: a Map keeps insertion order.
    this.entries.delete(key);
    this.entries.set(key, found);
    return found.answer;
  }

  get(key: string, load: () => Promise<{ value: unknown; keep: boolean }>): Promise<JsonAnswer> {
    const found = this.kept(key);
    if (found !== undefined) return found;
    const entry: Entry = { answer: Promise.resolve(undefined as never), expiresAt: Number.POSITIVE_INFINITY };
    entry.answer = load().then(
      ({ value, keep }) => {
        const answer = jsonAnswer(value);
        if (keep) {
          entry.expiresAt = this.now() + this.options.ttlMs;
          if (!this.options.shareLoads) this.put(key, entry);
        } else this.forget(key, entry);
        return answer;
      },
      (error: unknown) => {
        this.forget(key, entry);
        throw error;
      },
    );
    if (this.options.shareLoads) this.put(key, entry);
    return entry.answer;
  }

  private put(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }
}
