import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/random.ts';
import { type Candidate, pairBots } from './pairing.ts';

const bot = (id: string, rating: number, ratedGames = 10, capacity = 1, colorBalance = 0): Candidate => ({
  id,
  rating,
  ratedGames,
  faultStreak: 0,
  capacity,
  colorBalance,
});
const options = { maxPairs: 100, nearest: 1, farProbability: 0 };

describe('pairBots', () => {
  it('pairs each bot with its nearest rating when far draws are off', () => {
    const pairs = pairBots(
      [bot('a', 1000), bot('b', 1010), bot('c', 2000), bot('d', 2020)],
      options,
      seededRandom(1),
    );
    const sets = pairs.map((p) => [p.black, p.white].sort().join(''));
    expect(sets.sort()).toEqual(['ab', 'cd']);
  });

  it('pairs two house bots only when houseVsHouse allows it', () => {
    const house = (id: string, rating: number): Candidate => ({ ...bot(id, rating, 10, 3), house: true });
    const candidates = [house('h1', 1500), house('h2', 1505), house('h3', 1510), bot('guest', 2000, 0, 3)];
    for (let seed = 0; seed < 30; seed++) {
      const apart = pairBots(candidates, { ...options, houseVsHouse: false }, seededRandom(seed));
      expect(apart.length).toBeGreaterThan(0);
      for (const { black, white } of apart) expect([black, white]).toContain('guest');
      const together = pairBots(candidates, { ...options, houseVsHouse: true }, seededRandom(seed));
      expect(together.some(({ black, white }) => black !== 'guest' && white !== 'guest')).toBe(true);
    }
  });

  it('pairs two bots that share an operator mark only when sameOperator allows it', () => {
    const marked = (id: string, rating: number, ...operatorMarks: string[]): Candidate => ({
      ...bot(id, rating, 10, 3),
      operatorMarks,
    });
    // a1 and a2 registered from one address, a2 and b1 served on one host; c1 unmarked (a house bot).
    const candidates = [
      marked('a1', 1500, 'from:x'),
      marked('a2', 1501, 'from:x', 'host:h'),
      marked('b1', 1502, 'from:y', 'host:h'),
      marked('c1', 2000),
    ];
    const sharing = new Set(['a1 a2', 'a2 b1']);
    const pairOf = ({ black, white }: { black: string; white: string }) => [black, white].sort().join(' ');
    for (let seed = 0; seed < 30; seed++) {
      const apart = pairBots(candidates, options, seededRandom(seed)).map(pairOf);
      expect(apart.length).toBeGreaterThan(0);
      for (const pair of apart) expect(sharing.has(pair)).toBe(false);
      const together = pairBots(candidates, { ...options, sameOperator: true }, seededRandom(seed)).map(
        pairOf,
      );
      expect(together.some((pair) => sharing.has(pair))).toBe(true);
    }
  });

  it('never pairs two bots of one owner, whatever sameOperator says', () => {
    const owned = (id: string, owner?: string): Candidate => ({
      ...bot(id, 1500, 10, 3),
      ...(owner === undefined ? {} : { owner }),
    });
    const candidates = [owned('p', 'ada'), owned('q', 'ada'), owned('r', 'carl'), owned('s')];
    for (let seed = 0; seed < 30; seed++) {
      for (const sameOperator of [false, true]) {
        const pairs = pairBots(candidates, { ...options, sameOperator }, seededRandom(seed));
        expect(pairs.length).toBeGreaterThan(0);
        for (const { black, white } of pairs) expect([black, white].sort().join(' ')).not.toBe('p q');
      }
    }
  });

  it('never exceeds a bot’s capacity or pairs a bot with itself', () => {
    const candidates = Array.from({ length: 12 }, (_, i) => bot(`b${i}`, 1500 + i * 10, i, 1 + (i % 3)));
    for (let seed = 0; seed < 50; seed++) {
      const pairs = pairBots(
        candidates,
        { maxPairs: 100, nearest: 3, farProbability: 0.2 },
        seededRandom(seed),
      );
      const used = new Map<string, number>();
      for (const { black, white } of pairs) {
        expect(black).not.toBe(white);
        used.set(black, (used.get(black) ?? 0) + 1);
        used.set(white, (used.get(white) ?? 0) + 1);
      }
      for (const c of candidates) expect(used.get(c.id) ?? 0).toBeLessThanOrEqual(c.capacity);
      const keys = pairs.map((p) => [p.black, p.white].sort().join(' '));
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('spends two of each bot’s capacity on a pairing of paired games, and skips a bot with one left', () => {
    const candidates = [
      bot('a', 1500, 0, 2),
      bot('b', 1510, 0, 3),
      bot('c', 1520, 0, 1),
      bot('d', 1530, 0, 4),
    ];
    for (let seed = 0; seed < 30; seed++) {
      const pairs = pairBots(candidates, { ...options, nearest: 3, matchesPerPair: 2 }, seededRandom(seed));
      const used = new Map<string, number>();
      for (const { black, white } of pairs) {
        for (const id of [black, white]) used.set(id, (used.get(id) ?? 0) + 2);
      }
      expect(used.has('c')).toBe(false);
      for (const c of candidates) expect(used.get(c.id) ?? 0).toBeLessThanOrEqual(c.capacity);
      expect(pairs.length).toBeGreaterThan(0);
    }
  });

  it('serves the bot with the fewest games first', () => {
    // Capacity allows one match: the newcomer gets it, with its nearest rating.
    const pairs = pairBots(
      [bot('veteran', 1500, 100), bot('newcomer', 1600, 0), bot('near', 1610, 50)],
      { maxPairs: 1, nearest: 1, farProbability: 0 },
      seededRandom(3),
    );
    expect(pairs).toHaveLength(1);
    expect([pairs[0]!.black, pairs[0]!.white].sort()).toEqual(['near', 'newcomer']);
  });

  it('serves bots whose last matches ended by their faults after every other, however few their games', () => {
    // Two sybils that never move, with no games, and two real bots: one round of room for one pairing.
    const sybil = (id: string): Candidate => ({ ...bot(id, 1500, 0), faultStreak: 2 });
    for (let seed = 0; seed < 20; seed++) {
      const pairs = pairBots(
        [sybil('s1'), sybil('s2'), bot('real-1', 1500, 40), bot('real-2', 1700, 60)],
        { maxPairs: 1, nearest: 1, farProbability: 0 },
        seededRandom(seed),
      );
      expect(pairs).toHaveLength(1);
      expect([pairs[0]!.black, pairs[0]!.white].sort()).toEqual(['real-1', 'real-2']);
    }
  });

  it('keeps one pairing a round for the bots at fault, however many clean bots could fill the round', () => {
    const clean = Array.from({ length: 24 }, (_, i) => bot(`clean-${i}`, 1500 + i, 10, 2));
    const faulted: Candidate = { ...bot('faulted-once', 1500, 10, 2), faultStreak: 1 };
    let played = 0;
    for (let seed = 0; seed < 20; seed++) {
      const pairs = pairBots(
        [...clean, faulted],
        { ...options, maxPairs: 10, matchesPerPair: 2 },
        seededRandom(seed),
      );
      expect(pairs).toHaveLength(10);
      if (pairs.some((p) => p.black === 'faulted-once' || p.white === 'faulted-once')) played++;
    }
    expect(played).toBe(20);
  });

  it('still pairs a bot with one at fault when no other is free', () => {
    const sybil = (id: string): Candidate => ({ ...bot(id, 1500, 0), faultStreak: 1 });
    const pairs = pairBots([sybil('s1'), sybil('s2'), bot('real', 1600, 40)], options, seededRandom(1));
    expect(pairs).toHaveLength(1);
    expect([pairs[0]!.black, pairs[0]!.white]).toContain('real');
  });

  it('gives black to the bot that has played white more', () => {
    const pairs = pairBots(
      [bot('often-black', 1500, 5, 1, 3), bot('often-white', 1500, 5, 1, -2)],
      options,
      seededRandom(9),
    );
    expect(pairs).toEqual([{ black: 'often-white', white: 'often-black' }]);
  });

  it('draws a far opponent now and then', () => {
    const candidates = [bot('low', 1000, 0, 100), bot('near', 1010, 10, 100), bot('far', 3000, 10, 100)];
    let far = 0;
    for (let seed = 0; seed < 200; seed++) {
      const [first] = pairBots(
        candidates,
        { maxPairs: 1, nearest: 1, farProbability: 0.3 },
        seededRandom(seed),
      );
      if (first && [first.black, first.white].includes('far')) far++;
    }
    expect(far).toBeGreaterThan(10);
    expect(far).toBeLessThan(120);
  });

  it('respects the round limit', () => {
    const candidates = Array.from({ length: 20 }, (_, i) => bot(`b${i}`, 1500, 0, 5));
    expect(
      pairBots(candidates, { maxPairs: 7, nearest: 3, farProbability: 0.1 }, seededRandom(4)),
    ).toHaveLength(7);
  });
});
