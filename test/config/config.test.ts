import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config.ts';

describe('the configuration', () => {
  it('maps every variable into the shape the code reads, with its defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      target: 'redis://127.0.0.1:6379',
      prefix: 'arena',
      autostart: true,
      dataDir: './data',
      replicaWait: { replicas: 0, timeoutMs: 500 },
    });
    expect(config.matchmaking.pauses).toEqual({
      afterFaults: 3,
      backoff: { firstMs: 5 * 60_000, maxMs: 24 * 3_600_000 },
    });
    expect(config.trustProxy).toBe(false);
    expect(config.oidc).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names each bad variable, and each rule between variables that fails', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/PORT: .*\n\s+LOG_LEVEL: /);
    expect(() => loadConfig({ TIME_LIMIT_MS_MIN: '5000' })).toThrow(
      'Invalid configuration: need TIME_LIMIT_MS_MIN <= TIME_LIMIT_MS_DEFAULT <= TIME_LIMIT_MS_MAX',
    );
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.org' })).toThrow(ConfigError);
  });

  it('reads only the variables it lists', () => {
    expect(CONFIG_VARIABLES).toContain('REDIS_URL');
    expect(CONFIG_VARIABLES).toContain('TRUST_PROXY');
    expect(new Set(CONFIG_VARIABLES).size).toBe(CONFIG_VARIABLES.length);
  });

  describe('EVENTS', () => {
    it('schedules an hourly round robin and a daily Swiss by default, and none when off', () => {
      const { series, tickMs } = loadConfig({}).events;
      expect(series.map((s) => [s.key, s.format, s.every, s.at])).toEqual([
        ['hourly', 'round-robin', 3_600_000, 0],
        ['daily', 'swiss', 86_400_000, 18 * 3_600_000],
      ]);
      expect(tickMs).toBe(5000);
      expect(loadConfig({ EVENTS: 'off' }).events.series).toEqual([]);
      expect(loadConfig({ EVENTS: '[]' }).events.series).toEqual([]);
    });

    it('fills a series in with its defaults', () => {
      const [series] = loadConfig({
        EVENTS: '[{"key":"blitz","name":"Blitz","format":"round-robin","every":"5m"}]',
      }).events.series;
      expect(series).toEqual({
        key: 'blitz',
        name: 'Blitz',
        format: 'round-robin',
        every: 300_000,
        at: 0,
        minEntrants: 4,
        gamesPerPairing: 2,
        openings: 'balanced',
        rated: true,
        minRatedGames: 0,
        houseBots: false,
      });
    });

    it.each([
      ['not JSON', '{hourly}', /EVENTS: must be a JSON array/],
      ['a unit it does not know', '[{"key":"a","name":"A","format":"round-robin","every":"1w"}]', /every/],
      [
        'a Swiss without rounds',
        '[{"key":"a","name":"A","format":"swiss","every":"1h"}]',
        /rounds is required/,
      ],
      [
        'more Swiss rounds than its smallest field can play',
        '[{"key":"a","name":"A","format":"swiss","every":"1h","rounds":5,"minEntrants":4}]',
        /4 entrants play at most 3 Swiss rounds/,
      ],
      [
        'an at past its every',
        '[{"key":"a","name":"A","format":"round-robin","every":"1h","at":"1h"}]',
        /at must/,
      ],
      [
        'two series of one key',
        '[{"key":"a","name":"A","format":"round-robin","every":"1h"},{"key":"a","name":"B","format":"round-robin","every":"1d"}]',
        /each series needs its own key/,
      ],
      [
        'a gauntlet, which needs a challenger',
        '[{"key":"a","name":"A","format":"gauntlet","every":"1h"}]',
        /format/,
      ],
    ])('refuses %s', (_, EVENTS, message) => {
      expect(() => loadConfig({ EVENTS })).toThrow(message);
    });
  });

  describe('the Redis topology', () => {
    it('is REDIS_URL by default, with no replica to wait for', () => {
      const { redis } = loadConfig({ REDIS_URL: 'redis://10.0.0.5:6380' });
      expect(redis.target).toBe('redis://10.0.0.5:6380');
      expect(redis.replicaWait).toEqual({ replicas: 0, timeoutMs: 500 });
      expect(redis.autostart).toBe(true);
    });

    it('is the primary behind REDIS_SENTINELS, waiting for one replica and starting no local server', () => {
      const { redis } = loadConfig({
        REDIS_SENTINELS: '10.0.0.1:26379, sentinel-b:26380,[::1]:26381',
        REDIS_SENTINEL_MASTER: 'arena',
        REDIS_PASSWORD: 'primary-secret',
      });
      expect(redis.target).toEqual({
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: 'sentinel-b', port: 26380 },
          { host: '::1', port: 26381 },
        ],
        name: 'arena',
        password: 'primary-secret',
      });
      expect(redis.replicaWait.replicas).toBe(1);
      expect(redis.autostart).toBe(false);
    });

    it('is the cluster of REDIS_CLUSTER_NODES, its keys under one hash tag, waiting for one replica', () => {
      const { redis } = loadConfig({
        REDIS_CLUSTER_NODES: '10.0.0.1:7000,redis-b:7001',
        REDIS_PASSWORD: 'node-secret',
        REDIS_PREFIX: 'arena-eu',
      });
      expect(redis.target).toEqual({
        cluster: [
          { host: '10.0.0.1', port: 7000 },
          { host: 'redis-b', port: 7001 },
        ],
        password: 'node-secret',
      });
      expect(redis.prefix).toBe('{arena-eu}');
      expect(redis.replicaWait.replicas).toBe(1);
      expect(redis.autostart).toBe(false);
    });

    it.each([
      [{ REDIS_SENTINELS: '10.0.0.1:26379' }, /REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together/],
      [{ REDIS_SENTINELS: '10.0.0.1', REDIS_SENTINEL_MASTER: 'arena' }, /REDIS_SENTINELS: must be host:port/],
      [{ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2' }, /REDIS_CLUSTER_NODES: must be host:port/],
      [
        {
          REDIS_CLUSTER_NODES: '10.0.0.1:7000',
          REDIS_SENTINELS: '10.0.0.1:26379',
          REDIS_SENTINEL_MASTER: 'a',
        },
        /REDIS_CLUSTER_NODES and REDIS_SENTINELS are two topologies/,
      ],
    ])('refuses %o', (env, message) => {
      expect(() => loadConfig(env)).toThrow(message);
    });
  });
});
