import type { Dispatcher } from 'undici';

/** What a bot answered: its final status and its body, or the start of it. */
export interface Answer {
  readonly status: number;
  /** The whole body, or only what arrived up to the cap when `overflow` says it was cut. */
  readonly bytes: Buffer;
  /**
   * `declared`: the content-length was over the cap, so nothing was read. `read`: more than the cap
   * arrived and reading stopped there. `false`: `bytes` is the whole body.
   */
  readonly overflow: false | 'declared' | 'read';
}

/** How much of a body an exchange reads before it stops and drops the connection. */
export interface BodyCaps {
  /** For 2xx answers, the ones that are parsed. */
  readonly okBytes: number;
  /** For every other status, whose body only goes into a fault's excerpt. */
  readonly errorBytes: number;
}

/**
 * One request and its answer, as a handler for undici's `dispatch`: body chunks are collected in an
 * array and settle one promise. This replaces `agent.request`, whose Readable body, async iterator
 * and per-call AbortSignal listeners took about a third of a busy worker's CPU.
 *
 * Past its cap a body is not read further: the answer settles with what came, and the request is
 * aborted, which makes undici destroy the socket instead of draining it. `answer` rejects with what
 * undici reports (connect errors keep their identity, so `isConnectPhaseError` still recognizes
 * them) or with the reason given to `abort`.
 *
 * @example
 * const exchange = new Exchange({ okBytes: 64 * 1024, errorBytes: 200 });
 * agent.dispatch({ origin, path, method: 'POST', headers, body }, exchange);
 * const timer = setTimeout(() => exchange.abort(new Error('too slow')), 1000);
 * const { status, bytes, overflow } = await exchange.answer;
 */
export class Exchange implements Dispatcher.DispatchHandler {
  readonly answer: Promise<Answer>;
  readonly #caps: BodyCaps;
  #resolve!: (answer: Answer) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | null = null;
  /** Set by `abort`; undici may not have handed over its controller yet, and gets it when it does. */
  #abortReason: Error | null = null;
  #status = 0;
  #cap = 0;
  #chunks: Buffer[] = [];
  #length = 0;

  constructor(caps: BodyCaps) {
    this.#caps = caps;
    this.answer = new Promise<Answer>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /**
   * Stops the exchange: `answer` rejects with `reason` at once, even when the request is still
   * waiting for a connection, and the request is aborted as soon as undici lets us. No-op once the
   * answer has settled.
   */
  abort(reason: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#abortReason = reason;
    this.#reject(reason);
    // undici answers with onResponseError, which finds the answer settled and does nothing.
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== null) controller.abort(this.#abortReason);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (status < 200) return; // informational (1xx): the final status is still to come
    this.#status = status;
    this.#chunks = [];
    this.#length = 0;
    const ok = status <= 299;
    this.#cap = ok ? this.#caps.okBytes : this.#caps.errorBytes;
    if (ok && Number(headers['content-length'] ?? 0) > this.#cap) this.#stop(controller, 'declared');
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    const room = this.#cap - this.#length;
    if (chunk.length > room) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#length += room;
      this.#stop(controller, 'read');
      return;
    }
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve({ status: this.#status, bytes: this.#body(), overflow: false });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(error);
  }

  /** Settles with the body so far and drops the connection rather than read the rest. */
  #stop(controller: Dispatcher.DispatchController, overflow: 'declared' | 'read'): void {
    this.#settled = true;
    this.#resolve({ status: this.#status, bytes: this.#body(), overflow });
    // Pause first, as undici's own Request does when a handler gives up mid-body: the parser then
    // stops at this chunk instead of running on to the end of the message of an aborted request.
    controller.pause();
    controller.abort(new Error('the arena stopped reading the response past its cap'));
  }

  /** The chunks as one Buffer; a body that came in one chunk (the usual case) is not copied. */
  #body(): Buffer {
    return this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#length);
  }
}
