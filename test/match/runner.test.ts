import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_MESSAGE_MAX } from '../../src/model/faults.ts';
import {
  type Color,
  type Direction,
  initialPosition,
  outcome,
  play,
  positionFromBoardText,
  rulesOptions,
  trappingDirections,
} from '../../src/reversi/index.ts';
import { registerBot } from '../support/api.ts';
import { createMatch, runnerFor } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { type LoopbackBot, playsFirstLegal, startLoopbackBot } from '../support/loopback-bot.ts';

type Behaviour = Parameters<typeof startLoopbackBot>[0];

const json =
  (body: unknown): Behaviour =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
const firstLegal = playsFirstLegal();

let h: Harness;
let arena: ReturnType<typeof runnerFor>;
const bots: LoopbackBot[] = [];
beforeAll(async () => {
  // Generous limits: a loaded CI machine must not turn a legal bot into a timeout.
  h = await createHarness({ RATED_TIME_LIMIT_MS: '5000', RATED_OVERAGE_MS: '0' });
  arena = runnerFor(h);
});
afterAll(async () => {
  await Promise.all(bots.map((bot) => bot.close()));
  await arena.close();
  await h.close();
});

async function botWith(name: string, behaviour: Behaviour) {
  const server = await startLoopbackBot(behaviour);
  bots.push(server);
  return { ...(await registerBot(h, { name, url: server.url })), server };
}

async function playMatch(black: string, white: string, rules: Record<string, unknown> | 'rated' = {}) {
  const id = await createMatch(
    h,
    black,
    white,
    rules === 'rated' ? { rated: true } : { rules: { timeLimitMs: 5000, overageMs: 0, ...rules } },
  );
  const end = await arena.runner.play(id, new AbortController().signal);
  const res = await request(h.app).get(`/v1/matches/${id}`);
  return { id, end, match: res.body };
}

/** Replays a recorded match through the engine: every ply legal, flips as recorded. */
function replayRecorded(match: {
  rules: Record<string, string>;
  moves: { square: string; player: Color; flips: string[]; direction?: Direction }[];
}) {
  const rules = rulesOptions({
    firstPlayer: match.rules.firstPlayer as Color,
    captureRule: match.rules.captureRule as 'all',
    scoring: match.rules.scoring as 'discs',
  });
  let position = initialPosition(rules);
  for (const move of match.moves) {
    expect(move.player).toBe(position.toMove);
    const result = play(
      position,
      { square: move.square, ...(move.direction ? { direction: move.direction } : {}) },
      rules,
    );
    if (!result.ok) throw result.error;
    expect(result.flips).toEqual(move.flips);
    position = result.position;
  }
  return { position, rules };
}

describe('a match between two bots that play legal moves', () => {
  it('is played to the end, every ply recorded, the result and ratings stored once', async () => {
    const a = await botWith('legal-a', firstLegal);
    const b = await botWith('legal-b', firstLegal);
    const { id, end, match } = await playMatch(a.id, b.id, 'rated');
    expect(end).toBe('finished');
    expect(match.status).toBe('finished');
    expect(match.moves.map((m: { ply: number }) => m.ply)).toEqual(
      match.moves.map((_: unknown, i: number) => i + 1),
    );
    const { position, rules } = replayRecorded(match);
    const final = outcome(position, rules);
    expect(match.result).toEqual({ winner: final.winner, discs: final.discs, reason: 'completed' });
    expect(match.moves[0].player).toBe('white');

    const [black, white] = await Promise.all([
      request(h.app).get(`/v1/bots/${a.id}`),
      request(h.app).get(`/v1/bots/${b.id}`),
    ]);
    expect(black.body.games).toBe(1);
    expect(white.body.games).toBe(1);
    expect(match.ratings.black.before).toBe(1500);
    expect(black.body.rating).toBe(match.ratings.black.after);
    expect(black.body.rating - 1500 + (white.body.rating - 1500)).toBeCloseTo(0, 9);

    // Running the finished match again changes nothing.
    expect(await arena.runner.play(id, new AbortController().signal)).toBe('already-ended');
    const again = await request(h.app).get(`/v1/matches/${id}`);
    expect(again.body).toEqual(match);
    expect((await request(h.app).get(`/v1/bots/${a.id}`)).body.games).toBe(1);
  });

  it('sends each bot the state of the protocol', async () => {
    const a = await botWith('state-a', firstLegal);
    // White takes its time over its first answer: its answer time cannot pass for black's.
    const b = await botWith('state-b', (seen, res, req) => {
      const { ply } = JSON.parse(seen.body) as { ply: number };
      if (ply === 2) setTimeout(() => firstLegal(seen, res, req), 30);
      else firstLegal(seen, res, req);
    });
    const { id, match } = await playMatch(a.id, b.id, { firstPlayer: 'black' });
    const first = JSON.parse(a.server.requests[0]!.body);
    expect(first).toMatchObject({
      matchId: id,
      game: 'reversi',
      you: 'black',
      ply: 1,
      history: [],
      legalMoves: ['d3', 'c4', 'f5', 'e6'],
      timeLimitMs: 5000,
      remainingOverageMs: 0,
      lastLatencyMs: null,
      opponent: { id: b.id, name: 'state-b', rating: 1500 },
    });
    expect(first.board).toEqual([
      '........',
      '........',
      '........',
      '...WB...',
      '...BW...',
      '........',
      '........',
      '........',
    ]);
    // Its next turn (ply 3) shows both plies so far as recorded, in order, and how long its own
    // answer took; the opponent's answer time is not its business.
    const asWire = (move: { ply: number; player: string; square: string }) => ({
      ply: move.ply,
      player: move.player,
      square: move.square,
    });
    const second = JSON.parse(a.server.requests[1]!.body);
    expect(second.ply).toBe(3);
    expect(second.history).toEqual(match.moves.slice(0, 2).map(asWire));
    expect(second.history.map((move: { player: string }) => move.player)).toEqual(['black', 'white']);
    expect(second.lastLatencyMs).toBe(match.moves[0].latencyMs);
    // White's first turn shows black's opening move, and no answer time of its own yet.
    const white = JSON.parse(b.server.requests[0]!.body);
    expect(white).toMatchObject({ you: 'white', ply: 2, lastLatencyMs: null });
    expect(white.history).toEqual(match.moves.slice(0, 1).map(asWire));
  });

  it('honours the single-direction rule', async () => {
    const chooser: Behaviour = (seen, res) => {
      const state = JSON.parse(seen.body);
      const square = state.legalMoves[0];
      const directions = trappingDirections(positionFromBoardText(state.board, state.you), square);
      json({ action: square, direction: directions[directions.length - 1] })(seen, res, undefined as never);
    };
    const a = await botWith('single-a', chooser);
    const b = await botWith('single-b', chooser);
    const { match } = await playMatch(a.id, b.id, { captureRule: 'single-direction' });
    expect(match.result.reason).toBe('completed');
    replayRecorded(match);
  });
});

describe('a match stopped while a push bot is thinking', () => {
  it('is interrupted, not failed, and keeps its record for the next run', async () => {
    const slow = await botWith('slow-thinker', playsFirstLegal(2000));
    const other = await botWith('patient', firstLegal);
    const id = await createMatch(h, other.id, slow.id, { rules: { timeLimitMs: 5000, overageMs: 0 } });
    const stop = new AbortController();
    const called = slow.server.nextRequest();
    const played = arena.runner.play(id, stop.signal);
    await called;
    stop.abort();
    await expect(played).resolves.toBe('interrupted');
    const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
    expect(match.status).toBe('running');
    expect(match.moves).toEqual([]);
  });
});

describe('a bot at fault', () => {
  const cases: [string, Behaviour, string][] = [
    ['sleeps past its time limit', () => {}, 'timeout'],
    ['answers 500', (_s, res) => res.writeHead(500).end('boom'), 'bot-error'],
    ['answers garbage', (_s, res) => res.writeHead(200).end('not json'), 'invalid-response'],
    ['answers an illegal move', json({ action: 'a1' }), 'illegal-move'],
    ['closes the connection', (_s, _res, req) => req.socket.destroy(), 'bot-error'],
    [
      'sends a 10 MB body',
      (_s, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1024 * 1024, 32);
        let sent = 0;
        const pump = () => {
          while (sent < 10 && res.write(chunk)) sent++;
          if (sent < 10) res.once('drain', pump);
          else res.end();
        };
        pump();
      },
      'invalid-response',
    ],
    [
      'redirects to a private address',
      (_s, res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end(),
      'bot-error',
    ],
  ];

  /** Plays its first move legally, then behaves as `behaviour`. */
  const afterOneMove =
    (behaviour: Behaviour): Behaviour =>
    (seen, res, req) => {
      const ply = (JSON.parse(seen.body) as { ply: number }).ply;
      (ply === 1 ? firstLegal : behaviour)(seen, res, req);
    };

  describe.each(cases)('that %s', (name, behaviour, reason) => {
    const slug = name.replace(/[^a-z0-9]+/g, '-').slice(0, 16);
    // Only the sleeper needs a short limit; the others fault at once.
    const rules = reason === 'timeout' ? { timeLimitMs: 200 } : {};

    it(`loses by ${reason} once it has moved`, async () => {
      const good = await botWith(`good-${slug}`, firstLegal);
      const bad = await botWith(`bad-${slug}`, afterOneMove(behaviour));
      // White moves first: the faulty bot as white plays ply 1 and faults on ply 3.
      const { match } = await playMatch(good.id, bad.id, rules);
      expect(match.status).toBe('finished');
      expect(match.result).toMatchObject({ reason, winner: 'black', fault: { player: 'white', reason } });
      expect(match.moves).toHaveLength(2);
    });

    it(`loses as a no-show when it faults before its first move`, async () => {
      const good = await botWith(`ok-${slug}`, firstLegal);
      const bad = await botWith(`absent-${slug}`, behaviour);
      const { match } = await playMatch(good.id, bad.id, rules);
      expect(match.status).toBe('finished');
      expect(match.result).toMatchObject({
        reason: 'no-show',
        winner: 'black',
        fault: { player: 'white', reason },
      });
      expect(match.moves).toEqual([]);
    });
  });
});

describe('a bot whose answer names thousands of fields', () => {
  it('is recorded with its fault message cut, not the whole list', async () => {
    // About 50 kB of unknown fields, under the 64 kB an answer may have.
    const fields = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 1]));
    const good = await botWith('good-many-fields', firstLegal);
    const bad = await botWith('many-fields', (seen, res) => {
      const [move] = (JSON.parse(seen.body) as { legalMoves: string[] }).legalMoves;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ action: move, ...fields }));
    });
    const { id } = await playMatch(good.id, bad.id);
    const fault = (await h.stores.matches.getMatch(id))?.result?.fault;
    expect(fault).toMatchObject({ player: 'white', reason: 'invalid-response', cause: 'not-an-action' });
    expect(fault?.message).toMatch(/^the response is not a BotAction: .*k0.*…$/);
    expect(fault?.message.length).toBeLessThanOrEqual(FAULT_MESSAGE_MAX);
  });
});
