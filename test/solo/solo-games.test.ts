import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import { seededRandom } from '../../src/support/random.ts';
import { bearer, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { answer, type LoopbackBot, startLoopbackBot } from '../support/loopback-bot.ts';
import { matchWorkerFor, playOut } from '../support/match-worker.ts';
import { hiddenTokenLeaks, replaySolo, type SoloMatch } from './solo-truth.ts';

let h: Harness;
/** A push bot playing a random legal action (with its colour), keeping every state it was sent. */
let pushBot: LoopbackBot;
const states: BotState[] = [];

beforeAll(async () => {
  h = await createHarness();
  const random = seededRandom(42);
  pushBot = await startLoopbackBot((seen, res) => {
    const state = JSON.parse(seen.body) as BotState;
    states.push(state);
    const actions = state.legalActions ?? [];
    answer(res, 200, actions[Math.floor(random() * actions.length)]);
  });
});
afterAll(async () => {
  await pushBot.close();
  await h.close();
});

async function finishedMatch(id: string): Promise<SoloMatch> {
  const res = await request(h.app).get(`/v1/matches/${id}`);
  expect(res.status).toBe(200);
  return res.body as SoloMatch;
}

describe('a push bot plays a solo game', () => {
  let id: string;
  let bot: Awaited<ReturnType<typeof registerBot>>;
  beforeAll(async () => {
    bot = await registerBot(h, { name: 'solo-push', url: pushBot.url });
    const res = await request(h.app)
      .post('/v1/solo')
      .set(bearer(bot.token))
      .send({ layout: 4242, scoring: 'points' });
    expect(res.status).toBe(202);
    expect(res.headers.location).toBe(`/v1/matches/${res.body.id}`);
    expect(res.body).toMatchObject({ game: 'solo', rated: false, status: 'queued' });
    expect(res.body.rules).toMatchObject({ layout: 4242, scoring: 'points' });
    id = res.body.id;
    await playOut(h, [id]);
  });

  it('plays it to the end, each move recorded with its colour, scored as a replay scores it', async () => {
    const match = await finishedMatch(id);
    expect(match.status).toBe('finished');
    expect(match.result?.reason).toBe('completed');
    expect(match.black.id).toBe(bot.id);
    expect(match.white.id).toBe(bot.id);
    expect(match.moves.length).toBeGreaterThan(0);
    for (const move of match.moves) expect(['black', 'white']).toContain(move.colour);
    const replayed = replaySolo(match);
    expect(replayed.over).toBe(true);
    expect(match.result?.discs).toEqual({ black: replayed.score, white: 0 });
  });

  it('sends a state per move showing only turned tokens, with score, captures and coloured actions', async () => {
    const match = await finishedMatch(id);
    const sent = states.filter((state) => state.matchId === id);
    expect(sent).toHaveLength(match.moves.length);
    expect(hiddenTokenLeaks(match, sent)).toEqual([]);
    const last = sent.at(-1)!;
    expect(last.game).toBe('solo');
    expect(last.you).toBe('black');
    expect(last.legalActions?.length).toBeGreaterThan(0);
    expect(new Set(last.legalMoves)).toEqual(new Set(last.legalActions!.map((action) => action.action)));
  });

  it('leaves the two-player ratings and tallies as they were', async () => {
    const res = await request(h.app).get(`/v1/bots/${bot.id}`);
    expect(res.body).toMatchObject({ rating: h.config.rating.start, games: 0, wins: 0, losses: 0, draws: 0 });
  });
});

describe('a pull bot plays a solo game', () => {
  it('reads the state and posts actions with their colours until the game ends', async () => {
    const bot = await registerBot(h, { name: 'solo-pull' });
    const started = await request(h.app).post('/v1/solo').set(bearer(bot.token)).send({ layout: 7 });
    expect(started.status).toBe(202);
    const id = started.body.id as string;
    const worker = await matchWorkerFor(h, 2);
    const seen: BotState[] = [];
    try {
      for (let turns = 0; turns < 200; turns++) {
        const state = await request(h.app).get(`/v1/matches/${id}/state?waitMs=5000`).set(bearer(bot.token));
        expect(state.status).toBe(200);
        if (state.body.status === 'finished') break;
        if (state.body.toMove !== 'black' || state.body.legalMoves.length === 0) continue;
        seen.push(state.body);
        const [first] = state.body.legalActions;
        const missing = await request(h.app)
          .post(`/v1/matches/${id}/actions`)
          .set(bearer(bot.token))
          .send({ action: first.action, ply: state.body.ply });
        expect(missing.status).toBe(422);
        const played = await request(h.app)
          .post(`/v1/matches/${id}/actions`)
          .set(bearer(bot.token))
          .send({ ...first, ply: state.body.ply });
        expect(played.status).toBe(200);
      }
    } finally {
      await worker.close();
    }
    const match = await finishedMatch(id);
    expect(match.status).toBe('finished');
    expect(match.result?.reason).toBe('completed');
    expect(match.result?.discs.black).toBe(replaySolo(match).score);
    expect(hiddenTokenLeaks(match, seen)).toEqual([]);
    // The bot hears of its game once, though it sits on both sides.
    const events = await h.redis.xrange(h.stores.keys.botEvents(bot.id), '-', '+');
    const kinds = events.map(([, fields]) => fields[fields.indexOf('type') + 1]);
    expect(kinds.filter((kind) => kind === 'matchStarted')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'matchFinished')).toHaveLength(1);
  });
});

describe('a solo game ended by a fault', () => {
  it('is recorded as a two-player fault is: an action without its colour is an illegal move', async () => {
    const careless = await startLoopbackBot((seen, res) => {
      const { legalMoves } = JSON.parse(seen.body) as BotState;
      answer(res, 200, { action: legalMoves[0] });
    });
    try {
      const bot = await registerBot(h, { name: 'solo-careless', url: careless.url });
      const res = await request(h.app).post('/v1/solo').set(bearer(bot.token)).send({ layout: 99 });
      await playOut(h, [res.body.id]);
      const match = await finishedMatch(res.body.id);
      expect(match.status).toBe('finished');
      expect(match.result).toMatchObject({
        reason: 'no-show',
        winner: null,
        discs: { black: 0, white: 0 },
        fault: { player: 'black', reason: 'illegal-move' },
      });
      expect(match.moves).toEqual([]);
      const seen = await request(h.app).get(`/v1/matches/${res.body.id}`).set(bearer(bot.token));
      expect(seen.body.result.fault.message).toMatch(/colour/);
    } finally {
      await careless.close();
    }
  });
});

describe('POST /v1/solo refuses', () => {
  it('a caller without a bot token, and a layout out of range', async () => {
    expect((await request(h.app).post('/v1/solo').send({ layout: 1 })).status).toBe(401);
    const bot = await registerBot(h, { name: 'solo-refused' });
    const res = await request(h.app).post('/v1/solo').set(bearer(bot.token)).send({ layout: -1 });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.path ?? res.body.issues?.[0]?.path).toBe('body.layout');
  });

  it("this week's league layouts, so that nobody practises the week's puzzles first", async () => {
    const bot = await registerBot(h, { name: 'solo-early' });
    const league = await request(h.app).get('/v1/solo/league');
    expect(league.status).toBe(200);
    const res = await request(h.app)
      .post('/v1/solo')
      .set(bearer(bot.token))
      .send({ layout: league.body.layouts[3] });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('solo/league-layout');
  });
});
