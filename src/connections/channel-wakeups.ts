import { setTimeout as delay } from 'node:timers/promises';
import { Cluster } from 'ioredis';
import { quitWithin } from './close-within.ts';
import type { RedisClient } from './redis-connection.ts';

/** How long a subscription asked again may take to be confirmed before it is asked once more. */
const RESUBSCRIBE_WAIT_MS = 2000;

/**
 * Called with a message published on the channel, or with no message when messages may have been
 * lost (the subscriber connection came back): look again at everything.
 */
export type Wake = (message?: string) => void;

interface Listeners {
  readonly wakes: Set<Wake>;
  /** Settles once Redis confirmed the subscription. */
  readonly subscribed: Promise<unknown>;
}

/**
 * Wake-ups on many sharded pub/sub channels (`SSUBSCRIBE`; writers `SPUBLISH`) over one subscriber
 * connection, so a thousand waits are a thousand callbacks, not a thousand sockets. A wake-up only
 * says "look again": messages published while the connection is down are lost, so every listener
 * is woken (with no message) when it comes back, and waiters always re-read the truth from the store.
 * Sharded, not plain, pub/sub: on a cluster a plain message crossed the cluster bus to every node,
 * which added 20-40 ms to each wake-up (docs/cluster.md); a sharded one is heard at its primary.
 */
export class ChannelWakeups {
  #subscriber: RedisClient | undefined;
  readonly #channels = new Map<string, Listeners>();
  #listeningAgain = false;
  #askedAgain = false;

  /** @param connect makes the subscriber connection, on first use. */
  constructor(private readonly connect: () => RedisClient) {}

  /**
   * Calls `wake` on each message on `channel` until the returned function is called. Resolves once
   * the subscription is in place: a message published after that reaches `wake`.
   */
  async listen(channel: string, wake: Wake): Promise<() => void> {
    const subscriber = this.#connection();
    let listeners = this.#channels.get(channel);
    if (listeners === undefined) {
      listeners = { wakes: new Set(), subscribed: subscriber.ssubscribe(channel) };
      this.#channels.set(channel, listeners);
    }
    const mine = listeners;
    mine.wakes.add(wake);
    try {
      await mine.subscribed;
    } catch (error) {
      mine.wakes.delete(wake);
      // A refused SUBSCRIBE must not stay the answer to every later listen on the channel.
      if (mine.wakes.size === 0 && this.#channels.get(channel) === mine) this.#channels.delete(channel);
      throw error;
    }
    return () => {
      mine.wakes.delete(wake);
      if (mine.wakes.size === 0 && this.#channels.get(channel) === mine) {
        this.#channels.delete(channel);
        subscriber.sunsubscribe(channel).catch(() => {});
      }
    };
  }

  #connection(): RedisClient {
    if (this.#subscriber === undefined) {
      const subscriber = this.connect();
      subscriber.on('smessage', (channel: string, message: string) => {
        for (const wake of this.#channels.get(channel)?.wakes ?? []) wake(message);
      });
      const wakeAll = () => {
        for (const { wakes } of this.#channels.values()) for (const wake of wakes) wake();
      };
      let connectedBefore = false;
      subscriber.on('ready', () => {
        // The first connection lost nothing: each listener reads once its subscription is in
        // place (see `listen`). Woken then too, a wait raced its own first read (two reads, one
        // of them for nothing, in whichever order they came).
        if (!connectedBefore) {
          connectedBefore = true;
          return;
        }
        // ioredis has resent the subscriptions (before emitting 'ready'): the PING's answer comes
        // after theirs, so a message published once the listeners look again is not missed.
        subscriber.ping().then(wakeAll, wakeAll);
      });
      if (subscriber instanceof Cluster) {
        // A cluster's shard subscribers are connections of their own: when one's node goes (its
        // primary failed over) or is replaced, subscribe again until confirmed, then look again.
        const listenAgain = () => void this.#listenAgain(subscriber, wakeAll);
        subscriber.on('-node', listenAgain);
        subscriber.on('subscribersReady', listenAgain);
      }
      // Errors reach the waiters as silence; they re-read the store when woken or at their deadline.
      subscriber.on('error', () => {});
      this.#subscriber = subscriber;
    }
    return this.#subscriber;
  }

  /**
   * On a cluster: subscribes every channel again until Redis confirms it, refreshing the slots
   * between tries, then wakes every listener. ioredis replaces the shard subscriber of a primary
   * that failed over by itself, but not always in time: a wait left unwoken for 20 s after a
   * failover was seen once in CI (test/connections/failover.test.ts). One run at a time; a
   * subscription made twice is harmless.
   */
  async #listenAgain(subscriber: Cluster, wakeAll: () => void): Promise<void> {
    // Asked again while a run is on (a subscriber replaced meanwhile): that run goes round once more.
    this.#askedAgain = true;
    if (this.#listeningAgain) return;
    this.#listeningAgain = true;
    try {
      while (this.#askedAgain && this.#subscriber === subscriber) {
        this.#askedAgain = false;
        await this.#subscribeAgain(subscriber);
      }
    } finally {
      this.#listeningAgain = false;
    }
    if (this.#subscriber === subscriber) wakeAll();
  }

  /** Subscribes every channel again, until Redis confirms it or the subscriber is closed. */
  async #subscribeAgain(subscriber: Cluster): Promise<void> {
    for (let attempt = 0; this.#subscriber === subscriber && this.#channels.size > 0; attempt++) {
      const channels = [...this.#channels.keys()];
      const confirmed = Promise.all(channels.map((channel) => subscriber.ssubscribe(channel)));
      if (
        await Promise.race([
          confirmed.then(
            () => true,
            () => false,
          ),
          delay(RESUBSCRIBE_WAIT_MS, false, { ref: false }),
        ])
      )
        break;
      subscriber.refreshSlotsCache();
      await delay(Math.min(100 * 2 ** attempt, 2000), undefined, { ref: false });
    }
  }

  async close(): Promise<void> {
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    if (subscriber === undefined) return;
    await quitWithin(subscriber);
  }
}
