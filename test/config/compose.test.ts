import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';

/** docker-compose.yml, as `docker compose config` would read it (anchors and merge keys resolved). */
const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8'), {
  merge: true,
}) as { services: Record<string, { environment?: Record<string, string>; profiles?: string[] }> };

/** An environment's values with compose's `${NAME:?…}` and `${NAME:-default}` filled in. */
const substituted = (env: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      String(value)
        .replace(/\$\{ADMIN_TOKEN:\?[^}]*\}/, 'a-compose-admin-token')
        .replace(/\$\{[A-Z_]+:-([^}]*)\}/, '$1'),
    ]),
  );

describe('docker-compose.yml', () => {
  it('configures every arena service with settings the arena accepts', () => {
    const arena = Object.entries(compose.services).filter(([, service]) => service.environment);
    expect(arena.map(([name]) => name).sort()).toEqual([
      'api',
      'api-cluster',
      'api-sentinel',
      'worker',
      'worker-cluster',
      'worker-sentinel',
    ]);
    for (const [, service] of arena)
      expect(() => loadConfig(substituted(service.environment!))).not.toThrow();
  });

  it('points the sentinel profile at its three sentinels, all in that profile', () => {
    const { redis } = loadConfig(substituted(compose.services['api-sentinel']!.environment!));
    expect(redis.target).toMatchObject({ name: 'arena' });
    if (typeof redis.target === 'string' || !('sentinels' in redis.target)) {
      throw new Error('the sentinel profile names no sentinels');
    }
    const sentinels = redis.target.sentinels.map((s) => s.host);
    expect(sentinels).toEqual(['sentinel-1', 'sentinel-2', 'sentinel-3']);
    for (const host of [...sentinels, 'redis-primary', 'redis-replica', 'worker-sentinel']) {
      expect(compose.services[host]?.profiles).toEqual(['sentinel']);
    }
  });

  it('points the cluster profile at its nodes, all in that profile, each announcing its own name', () => {
    const { redis } = loadConfig(substituted(compose.services['api-cluster']!.environment!));
    if (typeof redis.target === 'string' || !('cluster' in redis.target)) {
      throw new Error('the cluster profile names no cluster');
    }
    const seeds = redis.target.cluster.map((node) => node.host);
    const nodes = Object.keys(compose.services).filter((name) => name.startsWith('redis-node-'));
    expect(nodes).toHaveLength(6);
    expect(nodes).toEqual(expect.arrayContaining(seeds));
    for (const name of [...nodes, 'redis-cluster-create', 'worker-cluster']) {
      expect(compose.services[name]?.profiles).toEqual(['cluster']);
    }
    for (const name of nodes) expect((compose.services[name] as { hostname?: string }).hostname).toBe(name);
  });
});
