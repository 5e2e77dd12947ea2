import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../src/bot-client/memo.ts';
import { parseTarget } from '../../src/bot-client/target.ts';

describe('parseTarget', () => {
  it('splits a bot URL into origin and path, dropping the fragment', () => {
    expect(parseTarget('http://bot.example:8080/move?v=1#x')).toEqual({
      ok: true,
      target: {
        origin: 'http://bot.example:8080',
        path: '/move?v=1',
        href: 'http://bot.example:8080/move?v=1#x',
      },
    });
  });

  it.each([
    ['not a url', 'the bot URL is not a valid URL: not a url'],
    ['ftp://bot.example/', 'only http and https bot URLs are allowed, not ftp:'],
  ])('refuses %s', (url, message) => {
    expect(parseTarget(url)).toEqual({ ok: false, message });
  });
});

describe('boundedMemo', () => {
  it('computes each key once while it is kept', () => {
    let computed = 0;
    const length = boundedMemo(2, (key) => ++computed && key.length);
    expect([length('a'), length('a'), length('bb')]).toEqual([1, 1, 2]);
    expect(computed).toBe(2);
  });

  it('starts over when full, so memory stays bounded', () => {
    const seen: string[] = [];
    const echo = boundedMemo(2, (key) => {
      seen.push(key);
      return key;
    });
    for (const key of ['a', 'b', 'c', 'a']) echo(key);
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
  });
});
