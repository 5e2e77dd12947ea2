import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { startWorkers } from '../../src/wiring/processes.ts';
import { admin, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchEnded, pliesPlayed } from '../support/match-events.ts';
import { until } from '../support/private-redis.ts';
import { RedisClusterSet } from '../support/redis-cluster.ts';
import { SentinelSet } from '../support/sentinel-set.ts';

/** A replicated Redis of the test's own, and how to kill the primary that holds the arena's keys. */
interface Topology {
  readonly env: Record<string, string>;
  replicated(): Promise<void>;
  /** Kills (kill -9) the primary that serves the keys under `prefix`. */
  killPrimary(prefix: string): Promise<void>;
  /** Whether a replica has taken the killed primary's place. */
  promoted(prefix: string): Promise<boolean>;
  stop(): Promise<void>;
}

async function sentinelTopology(): Promise<Topology> {
  const set = await SentinelSet.start();
  return {
    env: set.env,
    replicated: () => set.replicated(),
    killPrimary: () => set.killPrimary(),
    promoted: async () => (await set.primary().catch(() => set.primaryPort)) === set.replicaPort,
    stop: () => set.stop(),
  };
}

async function clusterTopology(): Promise<Topology> {
  const cluster = await RedisClusterSet.start();
  let killed: number | undefined;
  return {
    env: cluster.env,
    replicated: () => cluster.replicated(),
    async killPrimary(prefix) {
      killed = await cluster.primaryOf(prefix);
      await cluster.kill(killed);
    },
    promoted: async (prefix) => (await cluster.primaryOf(prefix).catch(() => killed)) !== killed,
    stop: () => cluster.stop(),
  };
}

/**
 * The arena on a replicated Redis, behind Sentinel and as a cluster: the primary that holds the
 * arena's keys is killed with kill -9 while a rated match is being played, and the arena carries on
 * against the promoted replica without a restart: the API answers again, and the match ends once,
 * its ratings zero-sum. A spectator's wait (as every event stream and long poll waits) that
 * listened before the failover is woken by a move made after it.
 */
describe.each([
  ['Sentinel (REDIS_SENTINELS)', sentinelTopology],
  ['a Redis Cluster (REDIS_CLUSTER_NODES)', clusterTopology],
])('Redis behind %s', { timeout: 90_000 }, (_, startTopology) => {
  let topology: Topology;
  let h: Harness;
  let workers: Awaited<ReturnType<typeof startWorkers>>;
  const bots: LoopbackBot[] = [];
  beforeAll(async () => {
    topology = await startTopology();
    // LOG_LEVEL fatal: the failover's expected 503s would each log an error line.
    h = await createHarness({ ...topology.env, SHUTDOWN_GRACE_MS: '0', LOG_LEVEL: 'fatal' });
    workers = await startWorkers(h.config, pino({ level: 'silent' }));
    // Slow enough that the match is still being played when the failover is over (see the waits).
    for (let i = 0; i < 2; i++) bots.push(await startLoopbackBot(playsFirstLegal(80)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(bots.map((bot) => bot.close()));
    await workers?.close();
    await h?.close();
    await topology?.stop();
  });

  it('survives a kill -9 of the primary mid-match: the API answers again, the match ends once', async () => {
    const [black, white] = [
      await registerBot(h, { name: 'failover-black', url: bots[0]!.url }),
      await registerBot(h, { name: 'failover-white', url: bots[1]!.url }),
    ];
    const created = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: black.id, white: white.id, rated: true });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const matchId = created.body.id as string;
    const match = () => request(h.app).get(`/v1/matches/${matchId}`);
    await pliesPlayed(h, matchId, 6, 20_000);
    await topology.replicated();
    const waits = new RedisPullStore(h.redis, h.prefix);
    const stop = new AbortController();
    const spectator = waits.matchEvents.openReader(stop.signal);
    // Listening before the failover (what the stream already holds answers at once).
    expect((await spectator.read(matchId, '0-0', 10_000)).length).toBeGreaterThan(0);

    await topology.killPrimary(h.prefix);
    const killedAt = Date.now();
    const statuses: number[] = [];
    await until(
      async () => {
        const res = await match();
        statuses.push(res.status);
        return res.status === 200 && (await topology.promoted(h.prefix));
      },
      'the API to answer from the promoted primary',
      30_000,
    );
    const outageMs = Date.now() - killedAt;
    // Only 503s (the store unreachable) while the primary fails over, never another error.
    expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    console.log(`failover: the API answered again after ${outageMs} ms (${statuses.length} reads)`);

    // From the stream's end, a wait reads nothing at first: only a wake-up answers it before its
    // deadline, which the subscriber gives only once it listens again after the failover. The
    // worker may take a while to play on (a ply write lost with the primary fails its job, which
    // is tried again): a wait that ends empty while nothing was appended is waited again; one
    // that ends empty though an entry came a second or more before its deadline was never woken.
    const events = h.stores.keys.matchEvents(matchId);
    const [[lastId]] = (await h.redis.xrevrange(events, '+', '-', 'COUNT', 1)) as [[string, string[]]];
    try {
      for (const givenUpAt = Date.now() + 45_000; ; ) {
        expect(Date.now(), 'the match did not play on within 45 s of the failover').toBeLessThan(givenUpAt);
        const deadline = Date.now() + 5_000;
        if ((await spectator.read(matchId, lastId, 5_000)).length > 0) break;
        const [first] = await h.redis.xrange(events, `(${lastId}`, '+', 'COUNT', 1);
        const appendedAt = first === undefined ? Number.POSITIVE_INFINITY : Number(first[0].split('-')[0]);
        expect(
          appendedAt,
          'an entry came while a wait from the stream end was open; it was never woken',
        ).toBeGreaterThan(deadline - 1_000);
      }
      console.log(
        `failover: a wait from the stream end was woken ${Date.now() - killedAt} ms after the kill`,
      );
    } finally {
      stop.abort();
      await waits.close();
    }

    await matchEnded(h, matchId, 60_000);
    const finished = (await match()).body;
    expect(finished.result.reason).toBe('completed');
    const [b, w] = await Promise.all(
      [black, white].map(async (bot) => (await request(h.app).get(`/v1/bots/${bot.id}`)).body),
    );
    // Rated once: one game each, and what one gained the other lost.
    expect([b.ratedGames, w.ratedGames]).toEqual([1, 1]);
    expect(b.rating + w.rating).toBeCloseTo(3000, 6);
    // Writes go to the new primary.
    expect((await registerBot(h, { name: 'after-failover' })).id).toMatch(/^bot_/);
  });
});
