import { setTimeout as delay } from 'node:timers/promises';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { bearer, type RegisteredBot, registerBot, storedKeys } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { openSse } from '../support/sse.ts';
import { nextTurn, pullApi } from './pull-api.ts';

let world: PullArena;
let api: ReturnType<typeof pullApi>;
beforeAll(async () => {
  world = await startPullArena();
  api = pullApi(world.h);
});
afterAll(() => world.close());

/** A pull bot (white, first to move) against the push bot; the runner is stopped by `stop`. */
async function pullVersusPush(prefix: string, rules: Record<string, unknown>) {
  const { h, arena, pushBot } = world;
  const puller = await registerBot(h, { name: `${prefix}-pull` });
  const pusher = await registerBot(h, { name: `${prefix}-push`, url: pushBot.url });
  const id = await createMatch(h, pusher.id, puller.id, { rules });
  const run = new AbortController();
  const start = () => arena.runner.play(id, run.signal);
  return { puller, pusher, id, start, stop: () => run.abort() };
}

const clocks = (state: { remainingOverageMs: number; lastLatencyMs: number | null }) => ({
  remainingOverageMs: state.remainingOverageMs,
  lastLatencyMs: state.lastLatencyMs,
});

describe('POST /v1/matches/{matchId}/actions', () => {
  describe('after a move that spends overage', () => {
    it('answers with the clocks the arena charged, as the next yourTurn and the state report them', async () => {
      const rules = { timeLimitMs: 100, overageMs: 5000 };
      const { puller, id, start, stop } = await pullVersusPush('slow', rules);
      const stream = await openSse(`${world.base}/v1/bots/me/events`, bearer(puller.token));
      const played = start();
      try {
        const turn = await nextTurn(stream, id);
        expect(clocks(turn)).toEqual({ remainingOverageMs: 5000, lastLatencyMs: null });
        await delay(300); // the bot thinks past its time limit, into its overage bank
        const res = await api.act(id, puller, { action: turn.legalMoves[0], ply: turn.ply });
        expect(res.status).toBe(200);
        const answered = clocks(res.body);
        expect(answered.lastLatencyMs).not.toBeNull();
        expect(answered.remainingOverageMs).toBe(
          rules.overageMs - Math.max(0, answered.lastLatencyMs! - rules.timeLimitMs),
        );
        const next = await nextTurn(stream, id, turn.ply);
        expect(next.ply).toBeGreaterThan(turn.ply);
        expect(clocks(next)).toEqual(answered);
        expect(clocks((await api.state(id, puller.token)).body)).toEqual(answered);
      } finally {
        stream.close();
        stop();
      }
      expect(await played).toBe('interrupted');
    });
  });

  describe('when the same action is posted again', () => {
    let puller: RegisteredBot;
    let id: string;
    let stop: () => void;
    let played: Promise<unknown>;
    beforeAll(async () => {
      let start: () => Promise<unknown>;
      ({ puller, id, start, stop } = await pullVersusPush('again', {
        timeLimitMs: 10_000,
        overageMs: 0,
        captureRule: 'all',
      }));
      played = start();
    });
    afterAll(async () => {
      stop();
      await played;
    });

    it('answers with the current state and plays nothing more, by ply or by Idempotency-Key', async () => {
      for (const key of [undefined, 'move-key']) {
        const turn = await api.awaitTurn(id, puller);
        const move = { action: turn.legalMoves[0], ply: turn.ply };
        const first = await api.act(id, puller, move, key);
        expect(first.status).toBe(200);
        expect(first.body.history[turn.ply - 1]).toMatchObject({ ply: turn.ply, square: move.action });
        // The opponent answers; the retry then sees the match as it is now.
        const now = await api.awaitTurn(id, puller);
        expect(now.ply).toBeGreaterThan(turn.ply);
        const again = await api.act(id, puller, move, key);
        expect(again.status).toBe(200);
        expect(again.body).toEqual((await api.state(id, puller.token)).body);
        const match = (await request(world.h.app).get(`/v1/matches/${id}`)).body;
        expect(match.moves.filter((m: { ply: number }) => m.ply === turn.ply)).toHaveLength(1);
      }
    });

    it('treats a direction as no part of the action under captureRule all', async () => {
      const turn = await api.awaitTurn(id, puller);
      const move = { action: turn.legalMoves[0], ply: turn.ply, direction: 'n' };
      const first = await api.act(id, puller, move);
      expect(first.status).toBe(200);
      expect(first.body.history[turn.ply - 1]).toEqual({
        ply: turn.ply,
        player: 'white',
        square: move.action,
      });
      const again = await api.act(id, puller, move);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    });
  });

  describe('when the opponent posted with the Idempotency-Key the bot uses next', () => {
    it("plays the bot's move: each side's keys are its own", async () => {
      const { h, arena } = world;
      const black = await registerBot(h, { name: 'idem-black' });
      const white = await registerBot(h, { name: 'idem-white' });
      const id = await createMatch(h, black.id, white.id, { rules: { timeLimitMs: 10_000, overageMs: 0 } });
      const run = new AbortController();
      const played = arena.runner.play(id, run.signal);
      try {
        const first = await api.awaitTurn(id, white);
        const next = `${id}:${first.ply + 1}`;
        expect((await api.act(id, white, { action: first.legalMoves[0], ply: first.ply }, next)).status).toBe(
          200,
        );
        const turn = await api.awaitTurn(id, black);
        const res = await api.act(id, black, { action: turn.legalMoves[0], ply: turn.ply }, next);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.history[turn.ply - 1]).toMatchObject({
          ply: turn.ply,
          player: 'black',
          square: turn.legalMoves[0],
        });
      } finally {
        run.abort();
        await played;
      }
    });
  });

  describe('before the match has started', () => {
    it('answers 409 matches/not-your-turn and records nothing', async () => {
      const { puller, id } = await pullVersusPush('queued', {});
      const turn = (await api.state(id, puller.token)).body;
      const before = await storedKeys(world.h);
      const res = await api.act(id, puller, { action: turn.legalMoves[0], ply: 1 });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('matches/not-your-turn');
      expect(await storedKeys(world.h)).toEqual(before);
    });
  });

  describe("when the worker died after the bot's turn opened", () => {
    it('records the move at once all the same, and the worker that resumes plays on from it', async () => {
      const { puller, id, start, stop } = await pullVersusPush('orphaned', { timeLimitMs: 10_000 });
      // Running, its turn open, but no worker plays it any more.
      await world.h.stores.matches.startMatch(id, Date.now());
      const turn = await api.state(id, puller.token);
      const pull = new RedisPullStore(world.h.redis, world.h.prefix);
      await pull.openTurn(
        {
          matchId: id,
          ply: 1,
          player: 'white',
          botId: puller.id,
          deadline: Date.now() + 10_000,
          timeoutMs: 10_000,
          run: 'dead-run',
          ratings: { black: 1500, white: 1500 },
        },
        '{}',
      );
      await pull.close();
      const move = { action: turn.body.legalMoves[0], ply: 1 };
      const res = await api.act(id, puller, move);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.history[0]).toMatchObject({ ply: 1, player: 'white', square: move.action });
      const played = start();
      try {
        // The resumed run plays the push bot's reply and opens the pull bot's next turn.
        const next = await api.awaitTurn(id, puller);
        expect(next.ply).toBeGreaterThanOrEqual(3);
        expect(next.history[0]).toMatchObject({ ply: 1, square: move.action });
      } finally {
        stop();
      }
      expect(await played).toBe('interrupted');
    });
  });
});
