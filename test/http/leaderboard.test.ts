import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

/** Ranked from two rated games here, to keep the file quick; the default is 5. */
const MIN_GAMES = 2;

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
let legal: LoopbackBot;
let broken: LoopbackBot;
const bots = {} as Record<'ann' | 'bob' | 'cid' | 'dot' | 'eve', RegisteredBot>;

/** Creates and plays a rated match, as the matchmaker does; answers the match document. */
async function playedRated(black: RegisteredBot, white: RegisteredBot) {
  const id = await createMatch(h, black.id, white.id, { rated: true });
  await arena.runner.play(id, new AbortController().signal);
  return (await request(h.app).get(`/v1/matches/${id}`)).body;
}

const board = async (query: Record<string, number> = {}) =>
  (
    await request(h.app)
      .get('/v1/leaderboard')
      .query({ limit: 100, ...query })
  ).body;
const names = (entries: { bot: { name: string } }[]) => entries.map((entry) => entry.bot.name);
const oneDecimal = (value: number) => Math.round(value * 10) / 10 === value;

beforeAll(async () => {
  h = await createHarness({
    LEADERBOARD_MIN_GAMES: String(MIN_GAMES),
    // One fault pauses a push bot, so a bot that is down is paused after its first match.
    MATCHMAKING_PAUSE_AFTER_FAULTS: '1',
    RATED_TIME_LIMIT_MS: '5000',
    RATED_OVERAGE_MS: '0',
  });
  arena = runnerFor(h);
  legal = await startLoopbackBot(playsFirstLegal());
  broken = await startLoopbackBot((_seen, res) => res.writeHead(500).end('down'));
  for (const name of ['ann', 'bob', 'cid', 'dot'] as const) {
    bots[name] = await registerBot(h, { name, url: legal.url });
  }
  bots.eve = await registerBot(h, { name: 'eve', url: broken.url });
  // ann, bob and cid play two rated games each; dot one; eve faults in its first and is paused.
  await playedRated(bots.ann, bots.bob);
  await playedRated(bots.bob, bots.cid);
  await playedRated(bots.cid, bots.ann);
  await playedRated(bots.dot, bots.ann);
  await playedRated(bots.eve, bots.dot);
});
afterAll(async () => {
  await Promise.all([legal?.close(), broken?.close()]);
  await arena?.close();
  await h?.close();
});

describe('GET /v1/leaderboard', () => {
  it(`ranks the bots with ${MIN_GAMES} rated games or more, 1..n, and lists the others apart`, async () => {
    const page = await board();
    expect(page.minGames).toBe(MIN_GAMES);
    expect(names(page.items).sort()).toEqual(['ann', 'bob', 'cid']);
    expect(page.total).toBe(3);
    expect(page.items.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3]);
    expect(
      page.items.every((e: { ranked: boolean; games: number }) => e.ranked && e.games >= MIN_GAMES),
    ).toBe(true);
    const ratings = page.items.map((e: { rating: number }) => e.rating);
    expect(ratings).toEqual([...ratings].sort((x: number, y: number) => y - x));

    expect(names(page.unranked).sort()).toEqual(['dot', 'eve']);
    expect(page.unrankedTotal).toBe(2);
    for (const entry of page.unranked) {
      expect(entry).toMatchObject({ rank: null, ranked: false });
      expect(entry.ratedGames).toBeLessThan(MIN_GAMES);
    }
    // dot's win over eve, who never moved, moved no rating: counted among its games, not its rated ones.
    const dot = page.unranked.find((e: { bot: { name: string } }) => e.bot.name === 'dot');
    expect(dot).toMatchObject({ games: 2, wins: 1, ratedGames: 1 });
    const unrankedRatings = page.unranked.map((e: { rating: number }) => e.rating);
    expect(unrankedRatings).toEqual([...unrankedRatings].sort((x: number, y: number) => y - x));
  });

  it('pages through the ranked bots only, with the same unranked list on every page', async () => {
    const all = await board();
    const second = await board({ offset: 1, limit: 1 });
    expect(second.items).toHaveLength(1);
    expect(second.items[0]).toMatchObject({ rank: 2, bot: all.items[1].bot });
    expect(second.total).toBe(3);
    expect(names(second.unranked)).toEqual([names(all.unranked)[0]]);
    expect(second.unrankedTotal).toBe(2);
    const past = await board({ offset: 3 });
    expect(past.items).toEqual([]);
    expect(names(past.unranked)).toEqual(names(all.unranked));
  });

  it('marks a paused bot with the public reason of its pause, and the others with null', async () => {
    const page = await board();
    const eve = page.unranked.find((e: { bot: { name: string } }) => e.bot.name === 'eve');
    const profile = (await request(h.app).get(`/v1/bots/${bots.eve.id}`)).body;
    expect(profile.paused).not.toBeNull();
    const { detail: _detail, ...publicPart } = profile.paused;
    expect(eve.paused).toEqual(publicPart);
    expect(Object.keys(eve.paused).sort()).toEqual(['level', 'reason', 'since', 'until']);
    expect(eve.paused.detail).toBeUndefined(); // the owner's alone
    const others = [...page.items, ...page.unranked].filter(
      (e: { bot: { name: string } }) => e.bot.name !== 'eve',
    );
    expect(others.every((e: { paused: unknown }) => e.paused === null)).toBe(true);
  });

  it('gives ratings to one decimal: the bots, their strengths, histories and matches', async () => {
    await h.stores.ratings.saveStrengths(
      new Map([[bots.ann.id, { rating: 1512.4567, lower: 1401.2345, upper: 1630.9876 }]]),
      Date.now(),
    );
    const page = await board();
    const ann = page.items.find((e: { bot: { name: string } }) => e.bot.name === 'ann');
    expect(ann.strength).toEqual({ rating: 1512.5, lower: 1401.2, upper: 1631 });
    const stored = (await h.stores.bots.getBot(bots.ann.id))!.rating;
    expect(oneDecimal(stored)).toBe(false); // the store keeps the rating whole
    expect(ann.rating).toBe(Math.round(stored * 10) / 10);
    for (const entry of [...page.items, ...page.unranked]) expect(oneDecimal(entry.rating)).toBe(true);

    const profile = (await request(h.app).get(`/v1/bots/${bots.ann.id}`)).body;
    expect(profile.rating).toBe(ann.rating);
    const history = (await request(h.app).get(`/v1/bots/${bots.ann.id}/ratings`)).body.items;
    expect(history).toHaveLength(3);
    for (const entry of history) {
      expect(oneDecimal(entry.before) && oneDecimal(entry.after)).toBe(true);
    }
    expect(history.at(-1).after).toBe(profile.rating);
    const match = (await request(h.app).get(`/v1/matches/${history.at(-1).matchId}`)).body;
    for (const side of ['black', 'white'] as const) {
      expect(oneDecimal(match.ratings[side].before) && oneDecimal(match.ratings[side].after)).toBe(true);
    }
  });

  it('moves a bot to the ranked list with its rated game number MIN_GAMES', async () => {
    expect(names((await board()).unranked)).toContain('dot');
    await playedRated(bots.bob, bots.dot);
    const page = await board();
    expect(names(page.items)).toContain('dot');
    expect(names(page.unranked)).toEqual(['eve']);
    expect(page.total + page.unrankedTotal).toBe(5);
  });

  it('counts the rated games of bots listed before the leaderboard kept them apart (backfill at start)', async () => {
    const before = await board();
    await h.redis.del(h.stores.keys.leaderboardGames);
    expect(await h.stores.ratings.backfillLeaderboardGames()).toBe(5);
    expect(await h.stores.ratings.backfillLeaderboardGames()).toBe(0);
    expect(await board()).toEqual(before);
  });

  it('lists a retired bot nowhere', async () => {
    await request(h.app)
      .delete(`/v1/bots/${bots.eve.id}`)
      .set({ Authorization: `Bearer ${bots.eve.token}` });
    const page = await board();
    expect([...names(page.items), ...names(page.unranked)]).not.toContain('eve');
    expect(page.unrankedTotal).toBe(0);
  });
});

describe('LEADERBOARD_MIN_GAMES', () => {
  it('is 5 unless set, and 0 ranks every bot', () => {
    expect(loadConfig({}).leaderboardMinGames).toBe(5);
    expect(loadConfig({ LEADERBOARD_MIN_GAMES: '0' }).leaderboardMinGames).toBe(0);
  });

  it('at 0, ranks a bot without games', async () => {
    const everyone = await createHarness({ LEADERBOARD_MIN_GAMES: '0' });
    try {
      await registerBot(everyone, { name: 'newcomer' });
      const page = (await request(everyone.app).get('/v1/leaderboard')).body;
      expect(page.items).toMatchObject([{ rank: 1, ranked: true, bot: { name: 'newcomer' } }]);
      expect(page.unranked).toEqual([]);
    } finally {
      await everyone.close();
    }
  });
});
