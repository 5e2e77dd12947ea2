import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SseEvent } from '../../examples/bots/sse.ts';
import { compareIds } from '../../src/connections/stream-waits.ts';
import type { BotState } from '../../src/contract/index.ts';
import { abortedResult } from '../../src/model/records.ts';
import { storeKeys } from '../../src/redis/keys.ts';
import { encodeFinishEvent, MATCH_EVENTS_TTL_SECONDS } from '../../src/redis/match-event-codec.ts';
import { registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { answer, type LoopbackBot, type SeenRequest, startLoopbackBot } from '../support/loopback-bot.ts';
import { serve } from '../support/serve.ts';
import { specSchema } from '../support/spec-schema.ts';
import { openSse, type SseConnection } from '../support/sse.ts';

const MAX_STREAMS = 3;

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let runner: ReturnType<typeof runnerFor>;
const servers: LoopbackBot[] = [];
const open: SseConnection[] = [];

beforeAll(async () => {
  h = await createHarness({
    MAX_SPECTATOR_STREAMS_PER_ADDRESS: String(MAX_STREAMS),
    SSE_KEEPALIVE_MS: '300',
  });
  site = await serve(h);
  runner = runnerFor(h);
});
afterAll(async () => {
  for (const connection of open) connection.close();
  await site?.close();
  await runner?.close();
  await Promise.all(servers.map((server) => server.close()));
  await h?.close();
});

/** What a bot was asked, and when (the arena's deadline is fixed just before it asks). */
interface Asked {
  readonly at: number;
  readonly state: BotState;
}

type Answerer = (state: BotState, res: ServerResponse, seen: SeenRequest) => void;

/** A loopback push bot that notes when each turn reached it; it answers with `answerer`. */
async function pushBot(name: string, answerer: Answerer) {
  const asked: Asked[] = [];
  const server = await startLoopbackBot((seen, res) => {
    const state = JSON.parse(seen.body) as BotState;
    asked.push({ at: Date.now(), state });
    answerer(state, res, seen);
  });
  servers.push(server);
  return { bot: await registerBot(h, { name, url: server.url }), asked };
}

const firstLegal: Answerer = (state, res) => answer(res, 200, { action: state.legalMoves[0] });
const lastLegal: Answerer = (state, res) => answer(res, 200, { action: state.legalMoves.at(-1) });

/**
 * A push bot (as `pushBot`) that plays its first legal move but holds its answer at `ply`: `holds`
 * settles when it is asked for that ply, and `release` lets it answer.
 */
async function holdingAt(name: string, ply: number) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding: () => void = () => {};
  const holds = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const pushed = await pushBot(name, (state, res, seen) => {
    if (state.ply !== ply) return firstLegal(state, res, seen);
    holding();
    void released.then(() => firstLegal(state, res, seen));
  });
  return { ...pushed, holds, release };
}

/** Opens a spectator's stream of match `id`, closed after the file. */
async function spectate(id: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const connection = await openSse(`${site.origin}/v1/matches/${id}/events`, headers);
  open.push(connection);
  return connection;
}

/** The events of a stream up to and including `finished`. */
async function untilFinished(connection: SseConnection): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for (;;) {
    const event = await connection.next();
    events.push(event);
    if (event.event === 'finished') return events;
  }
}

let streamEvent: ((value: unknown) => string[]) | undefined;
/** What is wrong with an event (its name, id and data) against `MatchStreamEvent` in openapi.yaml. */
function schemaProblems(event: SseEvent): string[] {
  streamEvent ??= specSchema('MatchStreamEvent');
  const { event: name, id, data } = event;
  return streamEvent({ event: name, ...(id ? { id } : {}), data: JSON.parse(data) });
}

const data = (event: SseEvent) => JSON.parse(event.data);
/** An event without the time it was sent, which differs from one connection to the next. */
const sameEvent = (event: SseEvent) => {
  const { serverTime: _sent, ...rest } = data(event);
  return { id: event.id, event: event.event, data: rest };
};

describe('GET /v1/matches/{id}/events', () => {
  describe('on a match the arena plays against two push bots', () => {
    let id: string;
    let events: SseEvent[];
    let asked: Asked[];
    let recorded: {
      moves: { ply: number; latencyMs: number; player: string }[];
      result: unknown;
      ratings: unknown;
      finishedAt: string;
    };

    beforeAll(async () => {
      // Black spends some of its overage bank on its first move; the clocks must show it.
      let slow = true;
      const black = await pushBot('clocked-black', (state, res, seen) => {
        if (!slow) return firstLegal(state, res, seen);
        slow = false;
        setTimeout(() => firstLegal(state, res, seen), 150);
      });
      const white = await pushBot('clocked-white', lastLegal);
      asked = [...black.asked, ...white.asked];
      id = await createMatch(h, black.bot.id, white.bot.id, {
        rules: { firstPlayer: 'black', timeLimitMs: 100, overageMs: 2000 },
      });
      const stream = await spectate(id);
      events = [await stream.next()];
      const played = runner.runner.play(id, new AbortController().signal);
      events.push(...(await untilFinished(stream)));
      await played;
      asked = [...black.asked, ...white.asked].sort((a, b) => a.state.ply - b.state.ply);
      recorded = (await request(h.app).get(`/v1/matches/${id}`)).body;
    });

    it('starts with the state a spectator gets from GET /v1/matches/{id}/state, and no id', () => {
      const [first] = events;
      expect(first?.event).toBe('state');
      expect(first?.id).toBeUndefined();
      expect(data(first!).state).toMatchObject({ matchId: id, status: 'queued', ply: 1, deadline: null });
    });

    it('delivers every move in order, as recorded, each once, then finished', () => {
      const moves = events.filter((event) => event.event === 'move').map((event) => data(event).move);
      expect(moves.length).toBeGreaterThan(20);
      expect(moves).toEqual(recorded.moves);
      expect(events.at(-1)?.event).toBe('finished');
      expect(events.filter((event) => event.event === 'finished')).toHaveLength(1);
    });

    it('validates each event against its schema in openapi.yaml', () => {
      for (const event of events) expect(schemaProblems(event), event.data).toEqual([]);
    });

    it('gives every event after the state an id, in increasing order', () => {
      const ids = events.slice(1).map((event) => event.id!);
      expect(ids.every((eventId) => /^\d+-\d+$/.test(eventId))).toBe(true);
      for (let i = 1; i < ids.length; i++) expect(compareIds(ids[i - 1]!, ids[i]!)).toBeLessThan(0);
    });

    it("tells each turn's deadline as the arena set it: the bot's whole time, from just before it was asked", () => {
      // The turn each bot was asked: told by the `turn` that starts the match, then by each move.
      const told = new Map<number, { toMove: string; deadline: string | null }>();
      for (const event of events.slice(1, -1)) told.set(data(event).ply, data(event));
      expect(events[1]?.event).toBe('turn');
      expect(asked.length).toBeGreaterThan(20);
      for (const { at, state } of asked) {
        const turn = told.get(state.ply);
        expect(turn?.toMove, `ply ${state.ply}`).toBe(state.you);
        const deadline = Date.parse(turn!.deadline!);
        const start = deadline - (state.timeLimitMs + state.remainingOverageMs);
        expect(start, `ply ${state.ply}`).toBeLessThanOrEqual(at);
        expect(at - start, `ply ${state.ply}`).toBeLessThan(1000);
      }
      // The end: nobody to move, no deadline.
      const last = data(events.at(-2)!);
      expect(last).toMatchObject({ toMove: null, deadline: null });
    });

    it("shows each side's clock after its moves: what is left of its bank and its last answer time", () => {
      for (const event of events.filter((e) => e.event === 'move')) {
        const { move, clocks } = data(event);
        const mine = recorded.moves.filter((m) => m.ply <= move.ply && m.player === move.player);
        const spent = mine.reduce((sum, m) => sum + Math.max(0, m.latencyMs - 100), 0);
        expect(clocks[move.player].remainingOverageMs).toBe(2000 - spent);
        if (move.square !== 'pass') expect(clocks[move.player].lastLatencyMs).toBe(move.latencyMs);
      }
      const firstBlack = data(events.find((e) => e.event === 'move')!);
      expect(firstBlack.move.latencyMs).toBeGreaterThanOrEqual(150);
      expect(firstBlack.clocks.black.remainingOverageMs).toBeLessThan(2000);
    });

    it('ends with the result as the match records it', () => {
      expect(data(events.at(-1)!)).toEqual({
        matchId: id,
        status: 'finished',
        result: recorded.result,
        ratings: recorded.ratings,
        finishedAt: recorded.finishedAt,
      });
    });

    it('keeps the stream for a while after the end, not for ever', async () => {
      const ttl = await h.redis.ttl(storeKeys(h.prefix).matchEvents(id));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(MATCH_EVENTS_TTL_SECONDS);
    });

    it('ends the stream after finished', async () => {
      const again = await spectate(id);
      expect((await again.next()).event).toBe('state');
      expect((await again.next()).event).toBe('finished');
      await expect(again.next()).rejects.toThrow(/ended/);
    });

    it('keeps only the finished event once the match has ended: the moves are in its record', async () => {
      const kept = await h.redis.xrange(storeKeys(h.prefix).matchEvents(id), '-', '+');
      expect(kept.map(([eventId]) => eventId)).toEqual([events.at(-1)!.id]);
    });

    it('starts afresh, with the state, a resume from before the end', async () => {
      const resumed = await spectate(id, { 'last-event-id': events[12]!.id! });
      const told = await untilFinished(resumed);
      expect(told.map((event) => event.event)).toEqual(['state', 'finished']);
      expect(data(told[0]!).state).toEqual((await request(h.app).get(`/v1/matches/${id}/state`)).body);
      expect(sameEvent(told[1]!)).toEqual(sameEvent(events.at(-1)!));
    });
  });

  describe('resumed while the match is played', () => {
    /**
     * A match held at `ply` (black's turn), followed from its start: `seen` holds every event up to
     * the held turn (the state, the first turn, then the moves before `ply`).
     */
    async function heldAt(name: string, ply: number) {
      const { holds, release, ...black } = await holdingAt(`${name}-black`, ply);
      const white = await pushBot(`${name}-white`, lastLegal);
      const id = await createMatch(h, black.bot.id, white.bot.id, {
        rules: { firstPlayer: 'black', timeLimitMs: 10_000, overageMs: 0 },
      });
      const stream = await spectate(id);
      const played = runner.runner.play(id, new AbortController().signal);
      await holds;
      const seen = [await stream.next()];
      while (seen.length < ply + 1) seen.push(await stream.next());
      return { id, stream, seen, release, played };
    }

    it('resumes after Last-Event-ID with only the later events, and no state', async () => {
      const { id, stream, seen, release, played } = await heldAt('resumed', 21);
      const resumed = await spectate(id, { 'last-event-id': seen[12]!.id! });
      const early = [await resumed.next()];
      while (early.at(-1)!.id !== seen.at(-1)!.id) early.push(await resumed.next());
      release();
      const [rest, restResumed] = await Promise.all([untilFinished(stream), untilFinished(resumed)]);
      await played;
      expect([...early, ...restResumed].map(sameEvent)).toEqual([...seen.slice(13), ...rest].map(sameEvent));
      expect(early[0]!.event).toBe('move');
    });

    it('starts afresh, with the state, a resume from further back than the stream still holds', async () => {
      const { id, stream, seen, release, played } = await heldAt('trimmed', 31);
      // Trimmed from its oldest end, as MAXLEN does past a match's last 200 events.
      await h.redis.xtrim(storeKeys(h.prefix).matchEvents(id), 'MINID', seen[20]!.id!);
      const resumed = await spectate(id, { 'last-event-id': seen[12]!.id! });
      const first = await resumed.next();
      expect(first.event).toBe('state');
      expect(data(first).state).toEqual((await request(h.app).get(`/v1/matches/${id}/state`)).body);
      // Kept as far back as it reaches: a resume within it is still a resume.
      const within = await spectate(id, { 'last-event-id': seen[25]!.id! });
      const early = [await within.next()];
      while (early.at(-1)!.id !== seen.at(-1)!.id) early.push(await within.next());
      expect(early.map(sameEvent)).toEqual(seen.slice(26).map(sameEvent));
      release();
      await Promise.all([untilFinished(stream), untilFinished(resumed), untilFinished(within)]);
      await played;
    });
  });

  describe('joined while a bot thinks', () => {
    it("starts at the current ply with the turn's deadline, then only the moves after it", async () => {
      const { holds, release, ...black } = await holdingAt('joined-black', 5);
      const white = await pushBot('joined-white', lastLegal);
      const id = await createMatch(h, black.bot.id, white.bot.id, {
        rules: { firstPlayer: 'black', timeLimitMs: 10_000, overageMs: 0 },
      });
      const played = runner.runner.play(id, new AbortController().signal);
      await holds;
      // White's ply 4 may still be on its way to the store while black is asked for ply 5.
      await expect.poll(async () => (await request(h.app).get(`/v1/matches/${id}`)).body.moveCount).toBe(4);

      const stream = await spectate(id);
      const first = data(await stream.next());
      expect(first.state).toMatchObject({ ply: 5, toMove: 'black', status: 'running' });
      const asked = black.asked.find((turn) => turn.state.ply === 5)!;
      const deadline = Date.parse(first.state.deadline);
      expect(deadline - 10_000).toBeLessThanOrEqual(asked.at);
      expect(asked.at - (deadline - 10_000)).toBeLessThan(1000);
      // GET /v1/matches/{id}/state shows spectators the same deadline, though black is a push bot.
      const polled = await request(h.app).get(`/v1/matches/${id}/state`);
      expect(polled.body.deadline).toBe(first.state.deadline);

      release();
      const next = await stream.next();
      expect(next.event).toBe('move');
      expect(data(next).move.ply).toBe(5);
      await played;
    });
  });

  describe('on a match lost by a fault', () => {
    it("shows anonymous spectators the public fault only, never the bot's answer or address", async () => {
      let moved = false;
      const faulty = await pushBot('faulty', (state, res, seen) => {
        if (!moved) {
          moved = true;
          return firstLegal(state, res, seen);
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('secret-answer <b>nope</b>');
      });
      const steady = await pushBot('steady', lastLegal);
      const id = await createMatch(h, faulty.bot.id, steady.bot.id, {
        rules: { firstPlayer: 'black', timeLimitMs: 5000, overageMs: 0 },
      });
      const stream = await spectate(id);
      const played = runner.runner.play(id, new AbortController().signal);
      const events = await untilFinished(stream);
      await played;
      const finished = data(events.at(-1)!);
      const anonymous = (await request(h.app).get(`/v1/matches/${id}`)).body;
      expect(finished.result.reason).toBe('invalid-response');
      expect(finished.result).toEqual(anonymous.result);
      expect(finished.result.fault.body).toBeUndefined();
      const port = new URL(servers.at(-2)!.url).port;
      for (const event of events) {
        expect(event.data).not.toContain('secret-answer');
        expect(event.data).not.toContain(`:${port}`);
        expect(schemaProblems(event)).toEqual([]);
      }
    });
  });

  describe('on a queued match', () => {
    it('keeps the connection alive with comments while nothing happens', async () => {
      const { bot: a } = await pushBot('idle-a', firstLegal);
      const { bot: b } = await pushBot('idle-b', firstLegal);
      const id = await createMatch(h, a.id, b.id);
      const stream = await spectate(id);
      expect((await stream.next()).event).toBe('state');
      // Comments are read while the next event is awaited.
      void stream.next().catch(() => {});
      await expect.poll(() => stream.comments(), { timeout: 5000 }).toBeGreaterThan(0);
      stream.close();
    });
  });

  describe('when the end trims moves a spectator had not read yet', () => {
    it('sends the state afresh before finished; a spectator that had read them all gets finished alone', async () => {
      const { bot: a } = await pushBot('lagging-a', firstLegal);
      const { bot: b } = await pushBot('lagging-b', firstLegal);
      const id = await createMatch(h, a.id, b.id);
      const stream = await spectate(id);
      expect((await stream.next()).event).toBe('state');
      // What a finish leaves: its own entry alone. The spectator saw no move; the record says 4.
      const keys = storeKeys(h.prefix);
      const finish = (plies: number) =>
        encodeFinishEvent({
          status: 'aborted',
          result: abortedResult(),
          ratings: null,
          finishedAt: 1,
          plies,
        });
      await h.redis.xadd(keys.matchEvents(id), '*', 'type', 'finished', 'data', finish(4));
      await h.redis.spublish(keys.streamAppends, keys.matchEvents(id));
      const told = await untilFinished(stream);
      expect(told.map((event) => event.event)).toEqual(['state', 'finished']);
      expect(schemaProblems(told[0]!)).toEqual([]);

      const other = await createMatch(h, a.id, b.id);
      const caughtUp = await spectate(other);
      expect((await caughtUp.next()).event).toBe('state');
      await h.redis.xadd(keys.matchEvents(other), '*', 'type', 'finished', 'data', finish(0));
      await h.redis.spublish(keys.streamAppends, keys.matchEvents(other));
      expect((await untilFinished(caughtUp)).map((event) => event.event)).toEqual(['finished']);
    });
  });

  describe('when the address holds its most streams', () => {
    it('answers 429 streams/too-many, and takes a stream again once one closes', async () => {
      const { bot: a } = await pushBot('capped-a', firstLegal);
      const { bot: b } = await pushBot('capped-b', firstLegal);
      const id = await createMatch(h, a.id, b.id);
      const held = await Promise.all(Array.from({ length: MAX_STREAMS }, () => spectate(id)));
      for (const stream of held) expect((await stream.next()).event).toBe('state');

      const refused = await fetch(`${site.origin}/v1/matches/${id}/events`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBeTruthy();
      expect(await refused.json()).toMatchObject({ status: 429, code: 'streams/too-many' });

      // Once a stream closes, its place is free again (each try's stream is closed at once).
      held[0]!.close();
      const status = async () => {
        const res = await fetch(`${site.origin}/v1/matches/${id}/events`);
        await res.body?.cancel();
        return res.status;
      };
      await expect.poll(status, { timeout: 5000 }).toBe(200);
      for (const stream of held) stream.close();
    });
  });

  describe('for a match that does not exist', () => {
    it('answers 404 matches/not-found, before any stream', async () => {
      const res = await request(h.app).get('/v1/matches/match_01JC3S2Q7G5T1XK0V3JH3W6R2D/events');
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('matches/not-found');
    });
  });

  describe('with a Last-Event-ID that is no stream id', () => {
    it('answers 400 request/invalid', async () => {
      const { bot: a } = await pushBot('bad-id-a', firstLegal);
      const { bot: b } = await pushBot('bad-id-b', firstLegal);
      const id = await createMatch(h, a.id, b.id);
      const res = await request(h.app).get(`/v1/matches/${id}/events`).set('last-event-id', 'nope');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('request/invalid');
    });
  });
});

describe('GET /v1/matches/live', () => {
  it('lists a running match with its players, ratings, ply and deadline, and drops it once it ends', async () => {
    const { holds, release, ...black } = await holdingAt('listed-black', 3);
    const white = await pushBot('listed-white', lastLegal);
    const id = await createMatch(h, black.bot.id, white.bot.id, {
      rules: { firstPlayer: 'black', timeLimitMs: 10_000, overageMs: 0 },
    });
    const played = runner.runner.play(id, new AbortController().signal);
    await holds;

    const listed = async () =>
      ((await request(h.app).get('/v1/matches/live')).body.items as { id: string }[]).find(
        (m) => m.id === id,
      );
    await expect.poll(listed, { timeout: 5000 }).toMatchObject({ ply: 3 });
    const res = await request(h.app).get('/v1/matches/live');
    expect(res.status).toBe(200);
    const item = res.body.items.find((m: { id: string }) => m.id === id);
    expect(item).toMatchObject({
      black: { id: black.bot.id, name: 'listed-black', rating: 1500 },
      white: { id: white.bot.id, name: 'listed-white', rating: 1500 },
      rated: false,
      ply: 3,
      toMove: 'black',
    });
    const left = Date.parse(item.deadline) - Date.parse(res.body.serverTime);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(10_000);

    release();
    await played;
    await expect.poll(listed, { timeout: 5000 }).toBeUndefined();
  });
});
