import { describe, expect, it } from 'vitest';
import * as scripts from './lua-scripts.ts';

const LUA = Object.entries(scripts as Record<string, unknown>).filter(
  (entry): entry is [string, string] => typeof entry[1] === 'string',
);

/** Every `redis.call('COMMAND', first, …)` of a script: the command and its first argument. */
function calls(lua: string): { command: string; first: string | undefined }[] {
  return [...lua.matchAll(/redis\.call\((?:'(\w+)'|[^,]+)(?:,\s*([^,)]+))?/g)].map((found) => ({
    command: found[1] ?? '(a command from ARGV)',
    first: found[2]?.trim(),
  }));
}

/** Commands whose first argument is no key (SPUBLISH's is a shard channel). */
const KEYLESS = new Set(['TIME', 'SPUBLISH']);

describe('the Lua scripts', () => {
  it('are found', () => {
    expect(LUA.map(([name]) => name)).toContain('GUARDED_WRITES');
    expect(LUA.length).toBeGreaterThanOrEqual(9);
  });

  // A script that built a key name from the prefix would be a second copy of keys.ts, and would
  // touch a key that is not in KEYS (which Redis requires of scripts in a cluster).
  it.each(LUA)('%s touches only keys it is given in KEYS', (_name, lua) => {
    const named = calls(lua).filter(({ command }) => !KEYLESS.has(command));
    expect(named.length).toBeGreaterThan(0);
    for (const { first } of named) {
      // GUARDED_WRITES reads `local key = KEYS[…]` once per guard, and `key = KEYS[…]` per write.
      expect(first).toMatch(/^(KEYS\[[^\]]+\]|key|write\.key)$/);
    }
    if (/\bkey\b/.test(lua)) expect(lua).toMatch(/local key = KEYS\[/);
    if (/write\.key/.test(lua)) expect(lua).toMatch(/write = \{[^}]*key = KEYS\[/);
    expect(lua).not.toMatch(/prefix/i);
  });
});
