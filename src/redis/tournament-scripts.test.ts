import { describe, expect, it } from 'vitest';
import * as scripts from './tournament-scripts.ts';

const LUA = Object.entries(scripts as Record<string, unknown>).filter(
  (entry): entry is [string, string] => typeof entry[1] === 'string',
);

describe('the tournament Lua scripts', () => {
  it('are found', () => {
    expect(LUA.map(([name]) => name).sort()).toEqual(['ENTER_TOURNAMENT', 'LEAVE_TOURNAMENT']);
  });

  // As in lua-scripts.test.ts: every key a script touches comes in KEYS, none is built from a prefix.
  it.each(LUA)('%s touches only keys it is given in KEYS', (_name, lua) => {
    const firsts = [...lua.matchAll(/redis\.call\('\w+',\s*([^,)]+)/g)].map((found) => found[1]!.trim());
    expect(firsts.length).toBeGreaterThan(0);
    for (const first of firsts) expect(first).toMatch(/^KEYS\[\d\]$/);
    expect(lua).not.toMatch(/prefix/i);
  });
});
