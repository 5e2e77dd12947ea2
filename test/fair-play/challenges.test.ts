import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { steppingClock } from '../support/harness.ts';
import { answer, type LoopbackBot, type SeenRequest, startLoopbackBot } from '../support/loopback-bot.ts';
import { botHeard, matchEnded } from '../support/match-events.ts';
import { matchWorkerFor } from '../support/match-worker.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { openSse, type SseConnection } from '../support/sse.ts';

const clock = steppingClock();
let world: PullArena;
/** A push bot that asks: it declines its first challenge (too fast) and accepts the ones after. */
let asking: LoopbackBot;
const asked: SeenRequest[] = [];
beforeAll(async () => {
  world = await startPullArena({ CHALLENGE_ANSWER_MS: '60000' }, { clock });
  asking = await startLoopbackBot((seen, res) => {
    const body = JSON.parse(seen.body) as { type?: string } & BotState;
    if (body.type === 'challenge') {
      asked.push(seen);
      answer(res, 200, asked.length === 1 ? { accept: false, reason: 'tooFast' } : { accept: true });
    } else answer(res, 200, { action: body.legalMoves[0] });
  });
});
afterAll(async () => {
  await asking.close();
  await world.close();
});

const challenge = (by: RegisteredBot, target: RegisteredBot, rules?: Record<string, number>) =>
  request(world.h.app)
    .post('/v1/matches')
    .set(bearer(by.token))
    .send({ black: by.id, white: target.id, ...(rules ? { rules } : {}) });
const matchOf = async (id: string) => (await request(world.h.app).get(`/v1/matches/${id}`)).body;
const events = (bot: RegisteredBot) => openSse(`${world.base}/v1/bots/me/events`, bearer(bot.token));

/** The next event of `stream` named `type`, skipping others. */
async function nextOf(stream: SseConnection, type: string) {
  for (;;) {
    const event = await stream.next();
    if (event.event === type) return JSON.parse(event.data);
  }
}

describe('a pull bot whose challenges is "ask"', () => {
  it('hears of a challenge on its stream; its decline ends it, and the challenger hears why', async () => {
    const target = await registerBot(world.h, { name: 'asks-first' });
    await request(world.h.app)
      .patch(`/v1/bots/${target.id}`)
      .set(bearer(target.token))
      .send({ challenges: 'ask' });
    const challenger = await registerBot(world.h, { name: 'asks-challenger' });
    const [targetStream, challengerStream] = await Promise.all([events(target), events(challenger)]);
    try {
      const created = await challenge(challenger, target);
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({
        status: 'pending',
        answerBy: new Date(clock.now() + 60_000).toISOString(),
      });
      expect(await nextOf(targetStream, 'challenge')).toMatchObject({
        matchId: created.body.id,
        you: 'white',
        challenger: { id: challenger.id, name: 'asks-challenger', owner: null },
      });

      // Only the challenged bot (or its owner, or the admin) answers.
      const stranger = await registerBot(world.h, { name: 'asks-stranger' });
      const meddled = await request(world.h.app)
        .post(`/v1/matches/${created.body.id}/accept`)
        .set(bearer(stranger.token));
      expect(meddled.body.code).toBe('matches/not-challenged');
      const byChallenger = await request(world.h.app)
        .post(`/v1/matches/${created.body.id}/accept`)
        .set(bearer(challenger.token));
      expect(byChallenger.status).toBe(403);

      const declined = await request(world.h.app)
        .post(`/v1/matches/${created.body.id}/decline`)
        .set(bearer(target.token))
        .send({ reason: 'later' });
      expect(declined.body).toMatchObject({
        status: 'declined',
        declineReason: 'later',
        result: null,
        ratings: null,
      });
      expect(await nextOf(challengerStream, 'challengeDeclined')).toEqual({
        matchId: created.body.id,
        reason: 'later',
      });
      const again = await request(world.h.app)
        .post(`/v1/matches/${created.body.id}/accept`)
        .set(bearer(target.token));
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('matches/not-pending');
      // Neither a fault nor a game: no streak, no record.
      expect((await request(world.h.app).get(`/v1/bots/${target.id}`)).body).toMatchObject({
        games: 0,
        paused: null,
      });
    } finally {
      targetStream.close();
      challengerStream.close();
    }
  });

  it('counts a pending challenge against its maker’s cap until it ends', async () => {
    const target = await registerBot(world.h, { name: 'asks-capped' });
    await request(world.h.app)
      .patch(`/v1/bots/${target.id}`)
      .set(bearer(target.token))
      .send({ challenges: 'ask' });
    const challenger = await registerBot(world.h, { name: 'asks-often' });
    const first = await challenge(challenger, target);
    const second = await challenge(challenger, target);
    const third = await challenge(challenger, target);
    expect([first.status, second.status, third.status]).toEqual([202, 202, 429]);
    await request(world.h.app)
      .post(`/v1/matches/${first.body.id}/decline`)
      .set(bearer(target.token))
      .send({});
    expect((await challenge(challenger, target)).status).toBe(202);
  });

  it('expires unanswered past its answerBy: both bots hear it, and an answer then is refused', async () => {
    const target = await registerBot(world.h, { name: 'asks-late' });
    await request(world.h.app)
      .patch(`/v1/bots/${target.id}`)
      .set(bearer(target.token))
      .send({ challenges: 'ask' });
    const challenger = await registerBot(world.h, { name: 'asks-waiting' });
    const [targetStream, challengerStream] = await Promise.all([events(target), events(challenger)]);
    try {
      const created = await challenge(challenger, target);
      clock.advance(60_000);
      const late = await request(world.h.app)
        .post(`/v1/matches/${created.body.id}/accept`)
        .set(bearer(target.token));
      expect(late.status).toBe(409);
      expect((await matchOf(created.body.id)).status).toBe('expired');
      for (const stream of [targetStream, challengerStream]) {
        expect(await nextOf(stream, 'challengeExpired')).toEqual({ matchId: created.body.id });
      }
    } finally {
      targetStream.close();
      challengerStream.close();
    }
  });

  it('is accepted by its owner with the account token', async () => {
    const account = (await request(world.h.app).post('/v1/accounts').send({ name: 'answering-owner' })).body;
    const target = (
      await request(world.h.app)
        .post('/v1/bots')
        .set(bearer(account.token))
        .send({ name: 'owned-asker', challenges: 'ask' })
    ).body;
    const challenger = await registerBot(world.h, { name: 'asks-the-owned' });
    const created = await challenge(challenger, target);
    const accepted = await request(world.h.app)
      .post(`/v1/matches/${created.body.id}/accept`)
      .set(bearer(account.token));
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('queued');
    expect(await world.h.queue.queue.getJob(created.body.id)).toBeDefined();
  });
});

describe('a push bot whose challenges is "ask"', () => {
  it('is asked with a signed call: its decline ends one challenge, its accept plays the next to the end', async () => {
    const target = await registerBot(world.h, { name: 'push-asker', url: asking.url });
    await request(world.h.app)
      .patch(`/v1/bots/${target.id}`)
      .set(bearer(target.token))
      .send({ challenges: 'ask' });
    const secret = (await request(world.h.app).post(`/v1/bots/${target.id}/token`).set(bearer(target.token)))
      .body.webhookSecret as string;
    const challenger = await registerBot(world.h, { name: 'push-challenger' });

    const first = (await challenge(challenger, target)).body;
    // The challenger hears of the decline in the write that declines it.
    await botHeard(world.h, challenger.id, 'challengeDeclined', first.id);
    expect(await matchOf(first.id)).toMatchObject({ status: 'declined', declineReason: 'tooFast' });
    const call = asked[0]!;
    const verified = new Webhook(secret).verify(call.body, call.headers as Record<string, string>) as {
      type: string;
      matchId: string;
    };
    expect(verified).toMatchObject({ type: 'challenge', matchId: first.id });
    expect(String(call.headers['webhook-id'])).toMatch(new RegExp(`^${first.id}-challenge-[0-9a-f]{12}$`));

    const second = (await challenge(challenger, target, { timeLimitMs: 100, overageMs: 0 })).body;
    // Accepted, it is queued, and a worker plays it (a declined one would never end).
    const worker = await matchWorkerFor(world.h);
    try {
      // The challenger is a pull bot that never moves here: the accepted match is played to its end.
      await matchEnded(world.h, second.id, 20_000);
    } finally {
      await worker.close();
    }
    expect((await matchOf(second.id)).result.reason).toBe('no-show');
  });
});

describe('a pending challenge left unanswered', () => {
  it('is expired by a worker once its time is up', async () => {
    const quick = await startPullArena({ CHALLENGE_ANSWER_MS: '1000' });
    try {
      const target = await registerBot(quick.h, { name: 'never-answers' });
      await request(quick.h.app)
        .patch(`/v1/bots/${target.id}`)
        .set(bearer(target.token))
        .send({ challenges: 'ask' });
      const challenger = await registerBot(quick.h, { name: 'waits-for-it' });
      const created = await request(quick.h.app)
        .post('/v1/matches')
        .set(bearer(challenger.token))
        .send({ black: challenger.id, white: target.id });
      const worker = await matchWorkerFor(quick.h);
      try {
        await botHeard(quick.h, challenger.id, 'challengeExpired', created.body.id);
        expect((await quick.h.stores.matches.getMatch(created.body.id))?.status).toBe('expired');
      } finally {
        await worker.close();
      }
    } finally {
      await quick.close();
    }
  });
});
