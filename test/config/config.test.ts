import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config.ts';

describe('the configuration', () => {
  it('maps every variable into the shape the code reads, with its defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.redis).toEqual({
      url: 'redis://127.0.0.1:6379',
      prefix: 'arena',
      autostart: true,
      dataDir: './data',
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
});
