import type { Redis } from 'ioredis';

interface Listeners {
  readonly wakes: Set<() => void>;
  /** Settles once Redis confirmed the subscription. */
  readonly subscribed: Promise<unknown>;
}

/**
 * Wake-ups on many pub/sub channels over one subscriber connection, so a thousand waits are a
 * thousand callbacks, not a thousand sockets. A wake-up only says "look again": messages published
 * while the connection is down are lost, so every listener is woken when it comes back, and
 * waiters always re-read the truth from the store.
 */
export class ChannelWakeups {
  #subscriber: Redis | undefined;
  readonly #channels = new Map<string, Listeners>();

  /** @param connect makes the subscriber connection, on first use. */
  constructor(private readonly connect: () => Redis) {}

  /**
   * Calls `wake` on each message on `channel` until the returned function is called. Resolves once
   * the subscription is in place: a message published after that reaches `wake`.
   */
  async listen(channel: string, wake: () => void): Promise<() => void> {
    const subscriber = this.#connection();
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      listeners = { wakes: new Set(), subscribed: subscriber.subscribe(channel) };
      this.#channels.set(channel, listeners);
    }
    const mine = listeners;
    mine.wakes.add(wake);
    try {
      await mine.subscribed;
    } catch (error) {
      mine.wakes.delete(wake);
      throw error;
    }
    return () => {
      mine.wakes.delete(wake);
      if (mine.wakes.size === 0 && this.#channels.get(channel) === mine) {
        this.#channels.delete(channel);
        subscriber.unsubscribe(channel).catch(() => {});
      }
    };
  }

  #connection(): Redis {
    if (this.#subscriber === undefined) {
      const subscriber = this.connect();
      subscriber.on('message', (channel: string) => {
        for (const wake of this.#channels.get(channel)?.wakes ?? []) wake();
      });
      subscriber.on('ready', () => {
        for (const { wakes } of this.#channels.values()) for (const wake of wakes) wake();
      });
      // Errors reach the waiters as silence; they re-read the store when woken or at their deadline.
      subscriber.on('error', () => {});
      this.#subscriber = subscriber;
    }
    return this.#subscriber;
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber === undefined) return;
    await subscriber.quit().catch(() => subscriber.disconnect());
  }
}
