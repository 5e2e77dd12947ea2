import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWthor, replayWthorGame, WTHOR_RULES, type WthorGame, wthorDir } from '../../scripts/wthor.ts';
import type { components } from '../../src/contract/index.ts';
import { pageIds } from '../../src/http/routes/export.ts';
import { loadSpec } from '../../src/http/spec.ts';
import { type Color, initialPosition, mustPass, type Position, play } from '../../src/reversi/index.ts';
import type { MatchQuery } from '../../src/store/match-store.ts';
import { pullApi } from '../pull/pull-api.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { parseGgf } from '../support/ggf-parse.ts';
import { createHarness } from '../support/harness.ts';
import { closedPort } from '../support/loopback-bot.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';

// <repo>/../shared/data, wherever the repo is cloned (see shared/data/README.md).
const DATA = new URL('../../../shared/data/', import.meta.url);
const START_BOARD = `${'-'.repeat(27)}O*${'-'.repeat(6)}*O${'-'.repeat(27)}`;
const UNKNOWN_MATCH = 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D';
const UNKNOWN_BOT = 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH';

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena({ MAX_STREAMS_PER_BOT: '16', RATE_LIMIT_EXPORTS_PER_MINUTE: '1000' });
});
afterAll(() => world.close());

type Match = components['schemas']['Match'];

/** GET over real HTTP from the arena's loopback port. */
const get = (path: string, token?: string) =>
  fetch(`${world.base}${path}`, { headers: token ? bearer(token) : {} });
/** A match document read over real HTTP (`GET /v1/matches/{matchId}` or its json export). */
const getMatch = async (path: string, token?: string) => (await (await get(path, token)).json()) as Match;

/** The media types openapi.yaml documents for a path's GET answer with `status`. */
function documentedTypes(path: string, status: string): string[] {
  const operation = loadSpec().document.paths[path]?.get as {
    responses: Record<string, { content?: Record<string, unknown> }>;
  };
  return Object.keys(operation.responses[status]?.content ?? {});
}
const mediaType = (res: Response) => (res.headers.get('content-type') ?? '').split(';')[0]!.trim();

/** A WTHOR game's plies as the arena records them: the recorded moves, with the passes put back. */
function pliesOf(game: WthorGame): { color: Color; square: string }[] {
  const plies: { color: Color; square: string }[] = [];
  let position: Position = initialPosition(WTHOR_RULES);
  const take = (square: string) => {
    plies.push({ color: position.toMove, square });
    const next = play(position, { square }, WTHOR_RULES);
    if (!next.ok) throw new Error(`${game.id}: ${square} is not legal`);
    position = next.position;
  };
  for (const square of game.moves) {
    if (mustPass(position)) take('pass');
    take(square);
  }
  return plies;
}

/** 20 finished games of 2004: the first 16, and 4 that end before the board is full. */
function chosenGames(): WthorGame[] {
  const all = parseWthor(readFileSync(new URL('WTH_2004.wtb', wthorDir(DATA))), 'WTH_2004.wtb');
  const finished = all.filter((game) => {
    const replayed = replayWthorGame(game);
    return replayed.ok && replayed.finished;
  });
  const first = finished.slice(0, 16);
  const early = finished.filter((game) => game.moves.length < 58 && !first.includes(game)).slice(0, 4);
  return [...first, ...early];
}

/** Plays a recorded game through the pull API, black first, each bot posting its recorded moves. */
async function replayThroughPullApi(game: WthorGame, bots: Record<Color, RegisteredBot>): Promise<string> {
  const { h, arena } = world;
  const { act, awaitTurn } = pullApi(h);
  const id = await createMatch(h, bots.black.id, bots.white.id, {
    rules: { firstPlayer: 'black', scoring: 'empties-to-winner', timeLimitMs: 10_000, overageMs: 0 },
  });
  const played = arena.runner.play(id, new AbortController().signal);
  for (const ply of pliesOf(game)) {
    if (ply.square === 'pass') continue; // the arena passes for a side with no move
    const turn = await awaitTurn(id, bots[ply.color]);
    expect(turn.toMove, `${game.id} ply ${turn.ply}`).toBe(ply.color);
    const res = await act(id, bots[ply.color], { action: ply.square, ply: turn.ply });
    expect(res.status, `${game.id} ${ply.square}: ${JSON.stringify(res.body)}`).toBe(200);
  }
  expect(await played).toBe('finished');
  return id;
}

describe('game records out', () => {
  const games = chosenGames();
  const bots = {} as Record<Color, RegisteredBot>;
  const ids: string[] = [];

  beforeAll(async () => {
    bots.black = await registerBot(world.h, { name: 'wthor-black' });
    bots.white = await registerBot(world.h, { name: 'wthor-white' });
    // Four at a time: each game waits on its own long polls, so they overlap well.
    for (let at = 0; at < games.length; at += 4) {
      ids.push(...(await Promise.all(games.slice(at, at + 4).map((g) => replayThroughPullApi(g, bots)))));
    }
  }, 180_000);

  describe('GET /v1/matches/{matchId}/export?format=ggf', () => {
    it('gives back each of 20 real WTHOR games: its moves, passes as PA, and its final score', async () => {
      expect(games.some((game) => pliesOf(game).some((ply) => ply.square === 'pass'))).toBe(true);
      for (const [index, game] of games.entries()) {
        const res = await get(`/v1/matches/${ids[index]}/export?format=ggf`);
        expect(res.status).toBe(200);
        expect(documentedTypes('/v1/matches/{matchId}/export', '200')).toContain(mediaType(res));
        const text = await res.text();
        const ggf = parseGgf(text);
        expect(
          ggf.moves.map(({ color, square }) => ({ color, square })),
          game.id,
        ).toEqual(pliesOf(game));
        expect(text.includes('[PA]')).toBe(pliesOf(game).some((ply) => ply.square === 'pass'));
        // Empties to the winner: black's recorded score against the rest of the board.
        expect(ggf.result, game.id).toEqual({ score: 2 * game.blackScore - 64, flag: null });
        expect(ggf).toMatchObject({ black: 'wthor-black', white: 'wthor-white', toMove: 'black' });
        expect(ggf.board).toBe(START_BOARD);
      }
    });

    it('starts a white-first game with white (O) to move and a black-first one with black (*)', async () => {
      const { h, arena, pushBot } = world;
      const one = await registerBot(h, { name: 'push-one', url: pushBot.url });
      const two = await registerBot(h, { name: 'push-two', url: pushBot.url });
      for (const firstPlayer of ['white', 'black'] as const) {
        const id = await createMatch(
          h,
          one.id,
          two.id,
          firstPlayer === 'black' ? { rules: { firstPlayer } } : {},
        );
        expect(await arena.runner.play(id, new AbortController().signal)).toBe('finished');
        const ggf = parseGgf(await (await get(`/v1/matches/${id}/export?format=ggf`)).text());
        const match = await getMatch(`/v1/matches/${id}`);
        expect(ggf.board).toBe(START_BOARD);
        expect(ggf.toMove).toBe(firstPlayer);
        expect(ggf.moves[0]?.color).toBe(firstPlayer);
        expect(ggf.moves.map((m) => [m.color, m.square])).toEqual(
          match.moves.map((m) => [m.player, m.square]),
        );
        expect(ggf.result?.score).toBe(match.result!.discs.black - match.result!.discs.white);
      }
    });

    it('answers 409 matches/ggf-unsupported for single-direction capture, which GGF cannot say', async () => {
      const id = await createMatch(world.h, bots.black.id, bots.white.id, {
        rules: { captureRule: 'single-direction' },
      });
      const res = await request(world.h.app).get(`/v1/matches/${id}/export?format=ggf`);
      expect(res.status).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe('matches/ggf-unsupported');
    });
  });

  describe('GET /v1/matches/{matchId}/export?format=json', () => {
    it('equals GET /v1/matches/{matchId}, and is the default format', async () => {
      for (const path of [`/v1/matches/${ids[0]}/export?format=json`, `/v1/matches/${ids[0]}/export`]) {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(mediaType(res)).toBe('application/json');
        expect(await res.json()).toEqual(await getMatch(`/v1/matches/${ids[0]}`));
      }
    });

    describe('when a bot faulted', () => {
      it('hides the fault detail from anonymous callers exactly as GET /v1/matches/{matchId} does', async () => {
        const { h, arena, pushBot } = world;
        const dead = await registerBot(h, {
          name: 'dead-bot',
          url: `http://127.0.0.1:${await closedPort()}/`,
        });
        const live = await registerBot(h, { name: 'live-bot', url: pushBot.url });
        const id = await createMatch(h, live.id, dead.id); // white (dead) moves first
        await arena.runner.play(id, new AbortController().signal);
        for (const token of [undefined, dead.token]) {
          const exported = await getMatch(`/v1/matches/${id}/export?format=json`, token);
          expect(exported).toEqual(await getMatch(`/v1/matches/${id}`, token));
          expect(exported.result?.fault?.message.includes('127.0.0.1')).toBe(token !== undefined);
        }
        const ggf = parseGgf(await (await get(`/v1/matches/${id}/export?format=ggf`)).text());
        // A no-show is a fault like any other: a win for the side that showed up, read as a resignation.
        expect(ggf.result).toEqual({ score: 64, flag: 'r' });
      });
    });
  });

  describe('GET /v1/matches/export?format=ndjson', () => {
    /** Reads every page from `path`, following `Link: <…>; rel="next"`. */
    async function allPages(path: string) {
      const pages: { ids: string[]; lines: Record<string, unknown>[] }[] = [];
      let next: string | null = path;
      while (next !== null) {
        const res = await get(next);
        expect(res.status).toBe(200);
        expect(documentedTypes('/v1/matches/export', '200')).toContain(mediaType(res));
        const text = await res.text();
        expect(text === '' || text.endsWith('\n')).toBe(true);
        const lines = text
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line));
        pages.push({ ids: lines.map((line) => line.id), lines });
        next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
      }
      return pages;
    }

    it("pages through only the bot's finished matches, newest first, each line its GET /v1/matches record", async () => {
      // A queued match of the same bot, and the other tests' matches of other bots, stay out.
      const queued = await createMatch(world.h, bots.black.id, bots.white.id);
      const pages = await allPages(`/v1/matches/export?bot=${bots.black.id}&format=ndjson&limit=7`);
      expect(pages.map((page) => page.ids.length)).toEqual([7, 7, 6]);
      const exported = pages.flatMap((page) => page.ids);
      expect(exported).toEqual([...ids].sort().reverse());
      expect(exported).not.toContain(queued);
      for (const line of pages.flatMap((page) => page.lines)) {
        // GET /v1/matches/{matchId} is checked against openapi.yaml by the harness.
        expect(line).toEqual(await getMatch(`/v1/matches/${line.id}`));
        expect(line.status).toBe('finished');
      }
    });

    it('stops at the first match created before since', async () => {
      const newestFirst = [...ids].sort().reverse();
      const since = (await getMatch(`/v1/matches/${newestFirst[9]}`)).createdAt;
      const pages = await allPages(`/v1/matches/export?bot=${bots.white.id}&since=${since}&limit=4`);
      const expected: string[] = [];
      for (const id of newestFirst) {
        if ((await getMatch(`/v1/matches/${id}`)).createdAt >= since) expected.push(id);
      }
      expect(pages.flatMap((page) => page.ids)).toEqual(expected);
      expect(expected.length).toBeGreaterThanOrEqual(10);
    });

    it('gathers a page across several store pages, the cursor landing after its last match', async () => {
      const list = (query: MatchQuery) => world.h.stores.matches.listMatches(query);
      const newestFirst = [...ids].sort().reverse();
      const query = { bot: bots.black.id, status: 'finished' as const, since: null, limit: 8 };
      const first = await pageIds(list, query, 3);
      expect(first.ids).toEqual(newestFirst.slice(0, 8));
      const rest = await pageIds(list, { ...query, limit: 100, cursor: first.nextCursor! }, 3);
      expect(rest).toEqual({ ids: newestFirst.slice(8), nextCursor: null });
    });

    it('exports none of a status the bot has no match in', async () => {
      expect(await allPages(`/v1/matches/export?bot=${bots.black.id}&status=aborted`)).toEqual([
        { ids: [], lines: [] },
      ]);
    });
  });

  describe('a request the export cannot answer', () => {
    const cases = [
      { path: `/v1/matches/${UNKNOWN_MATCH}/export?format=ggf`, status: 404, code: 'matches/not-found' },
      { path: () => `/v1/matches/${ids[0]}/export?format=pgn`, status: 400, code: 'request/invalid' },
      { path: '/v1/matches/not-an-id/export', status: 400, code: 'request/invalid' },
      { path: '/v1/matches/export', status: 400, code: 'request/invalid' },
      { path: `/v1/matches/export?bot=${UNKNOWN_BOT}`, status: 404, code: 'bots/not-found' },
      {
        path: () => `/v1/matches/export?bot=${bots.black.id}&format=csv`,
        status: 400,
        code: 'request/invalid',
      },
      {
        path: () => `/v1/matches/export?bot=${bots.black.id}&since=yesterday`,
        status: 400,
        code: 'request/invalid',
      },
      {
        path: () => `/v1/matches/export?bot=${bots.black.id}&limit=1001`,
        status: 400,
        code: 'request/invalid',
      },
      {
        path: () => `/v1/matches/export?bot=${bots.black.id}&cursor=nope`,
        status: 400,
        code: 'request/invalid-cursor',
      },
    ];
    it.each(cases)('answers $status $code as a problem document', async ({ path, status, code }) => {
      // supertest on the app: the harness checks each answer against openapi.yaml.
      const res = await request(world.h.app).get(typeof path === 'string' ? path : path());
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status, code });
    });
  });
});

describe('GET /v1/matches/export past RATE_LIMIT_EXPORTS_PER_MINUTE', () => {
  it('answers 429 rate-limited with Retry-After, refused requests not counted', async () => {
    const h = await createHarness({ RATE_LIMIT_EXPORTS_PER_MINUTE: '2' });
    try {
      const bot = await registerBot(h, { name: 'exporter' });
      const exportAs = (query: string) =>
        request(h.app).get(`/v1/matches/export?${query}`).set(bearer(bot.token));
      expect((await exportAs(`bot=${UNKNOWN_BOT}`)).status).toBe(404);
      expect((await exportAs(`bot=${bot.id}`)).status).toBe(200);
      expect((await exportAs(`bot=${bot.id}`)).status).toBe(200);
      const refused = await exportAs(`bot=${bot.id}`);
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.body.code).toBe('rate-limited');
      // Its budget is its own: the match list still answers.
      expect((await request(h.app).get(`/v1/matches?bot=${bot.id}`).set(bearer(bot.token))).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
