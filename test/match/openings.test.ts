import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import {
  boardText,
  DEFAULT_RULES,
  type Opening,
  openingMoves,
  openingPosition,
  openings,
  rulesOptions,
} from '../../src/reversi/index.ts';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import type { Harness } from '../support/harness.ts';
import { answer, type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';

interface WireMove {
  ply: number;
  player: 'black' | 'white';
  square: string;
  latencyMs: number;
  opening?: true;
}

let world: PullArena;
let h: Harness;
let legal: LoopbackBot;
let broken: LoopbackBot;
beforeAll(async () => {
  world = await startPullArena();
  h = world.h;
  legal = await startLoopbackBot(playsFirstLegal());
  broken = await startLoopbackBot((_seen, res) => answer(res, 500, { error: 'down' }));
});
afterAll(async () => {
  await Promise.all([legal.close(), broken.close()]);
  await world.close();
});

// An odd and an even line: after the first the side that did not move first plays first, after
// the second the first player does.
const odd = openings().find((o) => o.moves.length % 2 === 1)!;
const even = openings().find((o) => o.moves.length % 2 === 0)!;

let serial = 0;
async function pushBots(first: LoopbackBot = legal, second: LoopbackBot = legal) {
  serial++;
  const a = await registerBot(h, { name: `open-a-${serial}`, url: first.url });
  const b = await registerBot(h, { name: `open-b-${serial}`, url: second.url });
  return [a, b] as const;
}

async function play(black: string, white: string, rules: Record<string, unknown>) {
  const id = await createMatch(h, black, white, { rules: { timeLimitMs: 10_000, overageMs: 0, ...rules } });
  const end = await world.arena.runner.play(id, new AbortController().signal);
  const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
  return { id, end, match };
}

/** The board rows mirrored across the ranks with the colours swapped: white-first's image of black-first. */
const mirroredSwapped = (rows: readonly string[]) =>
  [...rows].reverse().map((row) => row.replace(/[BW]/g, (c) => (c === 'B' ? 'W' : 'B')));

describe('POST /v1/matches with rules.opening', () => {
  it('stores a balanced opening in the match’s rules, and the standard start as no opening at all', async () => {
    const [a, b] = await pushBots();
    const res = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rules: { opening: even.id } });
    expect(res.status).toBe(202);
    expect(res.body.rules).toMatchObject({ opening: even.id, firstPlayer: 'white' });
    const standard = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rules: { opening: 'standard' } });
    expect(standard.status).toBe(202);
    expect(standard.body.rules).not.toHaveProperty('opening');
  });

  it('answers 400 naming body.rules.opening for an id that is no opening', async () => {
    const [a, b] = await pushBots();
    const res = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rules: { opening: 'o-00000000' } });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('request/invalid');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.rules.opening']);
  });

  it('answers 400 naming body.rules.opening under single-direction capture, where the lines do not exist', async () => {
    const [a, b] = await pushBots();
    const res = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rules: { opening: even.id, captureRule: 'single-direction' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { path: 'body.rules.opening', message: expect.stringMatching(/captureRule/) },
    ]);
    expect((await request(h.app).get('/v1/matches').query({ bot: a.id }).set(admin)).body.items).toEqual([]);
  });

  it('keeps rated rules fixed: a rated request naming an opening is refused', async () => {
    const [a, b] = await pushBots();
    const res = await request(h.app)
      .post('/v1/matches')
      .set(admin)
      .send({ black: a.id, white: b.id, rated: true, rules: { opening: even.id } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('matches/rated-rules-fixed');
  });

  it('lists the openings a match may name in GET /v1/games/reversi', async () => {
    const res = await request(h.app).get('/v1/games/reversi');
    expect(res.body.openings).toHaveLength(openings().length);
    expect(res.body.openings[0]).toEqual({
      id: openings()[0]!.id,
      moves: openings()[0]!.moves,
      meanScore: openings()[0]!.meanScore,
    });
  });
});

describe('a match from a balanced opening, under the arena’s white-first rules', () => {
  for (const opening of [odd, even]) {
    describe(`(${opening.moves.length} plies)`, () => {
      let result: Awaited<ReturnType<typeof play>>;
      let bots: readonly [RegisteredBot, RegisteredBot];
      let requestsBefore: number;
      beforeAll(async () => {
        bots = await pushBots();
        requestsBefore = legal.requests.length;
        result = await play(bots[0].id, bots[1].id, { opening: opening.id });
      });

      it('starts with the opening’s plies, played by the arena: marked, without latency, mapped to white first', () => {
        const { end, match } = result;
        expect(end).toBe('finished');
        expect(match.result.reason).toBe('completed');
        expect(match.rules.opening).toBe(opening.id);
        const plies = match.moves.slice(0, opening.moves.length) as WireMove[];
        expect(plies.map((m) => m.square)).toEqual(openingMoves(opening, DEFAULT_RULES));
        expect(plies.every((m) => m.opening === true && m.latencyMs === 0)).toBe(true);
        expect(plies.map((m) => m.ply)).toEqual(plies.map((_, i) => i + 1));
        expect(plies[0]!.player).toBe('white');
        // Every later ply is a bot's (or the arena's pass), never marked.
        expect(match.moves.slice(opening.moves.length).some((m: WireMove) => m.opening)).toBe(false);
      });

      it('asks the first bot for the ply after the opening, showing it the opening position, plies and id', () => {
        const first = JSON.parse(legal.requests[requestsBefore]!.body) as BotState;
        const position = openingPosition(opening, DEFAULT_RULES);
        expect(first.ply).toBe(opening.moves.length + 1);
        expect(first.you).toBe(position.toMove);
        expect(first.board).toEqual(boardText(position));
        expect(first.rules).toEqual({
          ...DEFAULT_RULES,
          timeLimitMs: 10_000,
          overageMs: 0,
          opening: opening.id,
        });
        expect(first.history).toEqual(
          openingMoves(opening, DEFAULT_RULES).map((square, i) => ({
            ply: i + 1,
            player: i % 2 === 0 ? 'white' : 'black',
            square,
            opening: true,
          })),
        );
        // Its clock is untouched: the opening cost nobody time, and was no answer of its own.
        expect(first.lastLatencyMs).toBeNull();
        expect(first.remainingOverageMs).toBe(0);
        // The first bot move recorded is that ply, by that side.
        const move = result.match.moves[opening.moves.length] as WireMove;
        expect(move).toMatchObject({ ply: opening.moves.length + 1, player: position.toMove });
        expect(move.opening).toBeUndefined();
      });

      it('replays to the recorded position mirrored across the ranks with the colours swapped', () => {
        const state = JSON.parse(legal.requests[requestsBefore]!.body) as BotState;
        const blackFirst = openingPosition(opening, rulesOptions({ firstPlayer: 'black' }));
        expect(state.board).toEqual(mirroredSwapped(boardText(blackFirst)));
        expect(state.you).toBe(blackFirst.toMove === 'black' ? 'white' : 'black');
      });

      it('serves the same plies, marked, in the match’s state and its export', async () => {
        const state = (await request(h.app).get(`/v1/matches/${result.id}/state`)).body;
        expect(state.history.slice(0, opening.moves.length).every((m: WireMove) => m.opening)).toBe(true);
        expect(state.rules.opening).toBe(opening.id);
        const exported = await request(h.app)
          .get(`/v1/matches/${result.id}/export`)
          .query({ format: 'json' });
        expect(exported.status).toBe(200);
        expect(exported.body.moves).toEqual(result.match.moves);
      });
    });
  }

  it('plays the recorded line as it is under black-first rules', async () => {
    const [a, b] = await pushBots();
    const { match } = await play(a.id, b.id, { opening: even.id, firstPlayer: 'black' });
    expect(match.result.reason).toBe('completed');
    const plies = match.moves.slice(0, even.moves.length) as WireMove[];
    expect(plies.map((m) => m.square)).toEqual(even.moves);
    expect(plies[0]!.player).toBe('black');
  });
});

describe('a bot that faults before its first move of its own, in a match from an opening', () => {
  it.each([
    ['first', odd],
    ['second', even],
  ] as const)(
    'is a no-show even when the opening put plies in its colour (it moves %s)',
    async (_, opening: Opening) => {
      // The side to move after the opening answers legally once; the other side's server is down.
      const toMove = openingPosition(opening, DEFAULT_RULES).toMove;
      const [good, bad] = await pushBots(legal, broken);
      const [black, white] = toMove === 'black' ? [good, bad] : [bad, good];
      const { match } = await play(black.id, white.id, { opening: opening.id });
      const badSide = toMove === 'black' ? 'white' : 'black';
      expect(match.result).toMatchObject({ reason: 'no-show', winner: toMove, fault: { player: badSide } });
      expect(match.moves.some((m: WireMove) => m.player === badSide && m.opening)).toBe(true);
      expect(match.moves).toHaveLength(opening.moves.length + 1);
      expect(match.ratings).toBeNull();
    },
  );
});

describe('a pull bot in a match from an opening', () => {
  it('sees the opening plies in its history and moves at the ply after them', async () => {
    const puller = await registerBot(h, { name: 'open-pull' });
    const pusher = await registerBot(h, { name: 'open-push', url: world.pushBot.url });
    // White first and an even line: white, the pull bot, has the first move after it.
    const id = await createMatch(h, pusher.id, puller.id, {
      rules: { timeLimitMs: 10_000, overageMs: 0, opening: even.id },
    });
    const played = world.arena.runner.play(id, new AbortController().signal);
    let first: { ply: number; history: WireMove[]; rules: { opening?: string } } | null = null;
    for (;;) {
      const res = await request(h.app)
        .get(`/v1/matches/${id}/state`)
        .query({ waitMs: 5000 })
        .set(bearer(puller.token));
      expect(res.status).toBe(200);
      const state = res.body;
      if (state.toMove === null) break;
      if (state.toMove !== state.you || state.deadline === null) continue;
      first ??= state;
      const acted = await request(h.app)
        .post(`/v1/matches/${id}/actions`)
        .set(bearer(puller.token))
        .send({ action: state.legalMoves[0], ply: state.ply });
      expect(acted.status).toBe(200);
    }
    expect(await played).toBe('finished');
    expect(first!.ply).toBe(even.moves.length + 1);
    expect(first!.rules.opening).toBe(even.id);
    expect(first!.history.map((m) => m.square)).toEqual(openingMoves(even, DEFAULT_RULES));
    expect(first!.history.every((m) => m.opening)).toBe(true);
    const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
    expect(match.result.reason).toBe('completed');
    expect(match.moves[even.moves.length]).toMatchObject({ player: 'white', ply: even.moves.length + 1 });
  });
});
