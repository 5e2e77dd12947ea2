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
    expect(arena.map(([name]) => name).sort()).toEqual(['api', 'api-sentinel', 'worker', 'worker-sentinel']);
    for (const [, service] of arena)
      expect(() => loadConfig(substituted(service.environment!))).not.toThrow();
  });

  it('points the sentinel profile at its three sentinels, all in that profile', () => {
    const { redis } = loadConfig(substituted(compose.services['api-sentinel']!.environment!));
    expect(redis.target).toMatchObject({ name: 'arena' });
    if (typeof redis.target === 'string') throw new Error('the sentinel profile names a single server');
    const sentinels = redis.target.sentinels.map((s) => s.host);
    expect(sentinels).toEqual(['sentinel-1', 'sentinel-2', 'sentinel-3']);
    for (const host of [...sentinels, 'redis-primary', 'redis-replica', 'worker-sentinel']) {
      expect(compose.services[host]?.profiles).toEqual(['sentinel']);
    }
  });
});
