import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PullService } from '../../src/arena/pull.ts';
import type { MatchState } from '../../src/contract/index.ts';
import type { LiveTurn } from '../../src/model/live-events.ts';
import { eloRule } from '../../src/model/rating-rule.ts';
import type { Color } from '../../src/model/records.ts';
import { RedisPullStore } from '../../src/redis/redis-pull-store.ts';
import { type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { CommandMonitor } from '../support/command-monitor.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { PrivateRedis } from '../support/private-redis.ts';
import { pullApi } from './pull-api.ts';

// A redis-server of this file's own: MONITOR sees this API's commands alone, and watching every
// command costs no other test file anything.
let server: PrivateRedis;
let h: Harness;
let api: ReturnType<typeof pullApi>;
let commands: CommandMonitor;

beforeAll(async () => {
  server = await PrivateRedis.start();
  h = await createHarness({ REDIS_URL: server.url });
  api = pullApi(h);
  commands = await CommandMonitor.start(h.redis);
});
afterAll(async () => {
  commands?.stop();
  await h?.close();
  await server?.stop();
});

/** A running match of two pull bots that no worker plays, the bot to move with its turn, and the other bot. */
async function unplayedMatch(prefix: string) {
  const black = await registerBot(h, { name: `${prefix}-black` });
  const white = await registerBot(h, { name: `${prefix}-white` });
  const id = await createMatch(h, black.id, white.id, { rules: { timeLimitMs: 10_000 } });
  // Running, but no worker plays it: the test records the move itself, as the worker would.
  await h.stores.matches.startMatch(id, Date.now());
  const turn = (await api.state(id)).body as MatchState;
  const color = turn.toMove as Color;
  const [bot, opponent]: [RegisteredBot, RegisteredBot] = color === 'black' ? [black, white] : [white, black];
  const move = { action: turn.legalMoves[0] ?? '', ply: turn.ply };
  return { id, bot, opponent, color, move };
}

/** Records ply `move.ply` of match `id` as the worker does: the move and its live event in one write. */
async function recordMove(id: string, color: Color, move: { action: string; ply: number }) {
  const next: LiveTurn = {
    ply: move.ply + 1,
    toMove: color === 'black' ? 'white' : 'black',
    deadline: Date.now() + 10_000,
    banks: { black: 0, white: 0 },
    lastLatency: { black: null, white: null },
  };
  const record = { ply: move.ply, player: color, square: move.action, flips: [], latencyMs: 5 };
  expect(await h.stores.matches.appendMove(id, record, { id: 'test-run', follows: false }, next)).toBe(true);
}

/**
 * The worker's side of the next turn: ply `move.ply` recorded, then the opponent's turn opened (its
 * `yourTurn` appended to the opponent's event stream), as PullPlayer does.
 */
async function openNextTurn(
  id: string,
  color: Color,
  move: { action: string; ply: number },
  opponent: RegisteredBot,
) {
  await recordMove(id, color, move);
  const player: Color = color === 'black' ? 'white' : 'black';
  const turn = {
    matchId: id,
    ply: move.ply + 1,
    player,
    botId: opponent.id,
    startedAt: Date.now(),
    deadline: Date.now() + 10_000,
  };
  const pull = new RedisPullStore(h.redis, h.prefix);
  try {
    await pull.openTurn(turn, JSON.stringify({ matchId: id, ply: turn.ply }));
  } finally {
    await pull.close();
  }
  return turn;
}

/** The commands that read a hash. */
const HASH_READS = new Set(['hget', 'hmget', 'hgetall']);

/**
 * Watches the API's commands on match `id` from now on: its reads of the match's hash (not the
 * scripts' own reads), and when it first waits on the match's event stream.
 */
function watch(id: string) {
  const matchKey = h.stores.keys.match(id);
  const eventsKey = h.stores.keys.matchEvents(id);
  let hashReads = 0;
  let waiting!: () => void;
  const waits = new Promise<void>((resolve) => (waiting = resolve));
  const stop = commands.listen((args, source) => {
    const command = args[0]?.toLowerCase() ?? '';
    if (source !== 'lua' && HASH_READS.has(command) && args[1] === matchKey) hashReads++;
    // A wait reads the stream once as it begins (then only when an append is announced).
    if (command === 'xread' && args.includes(eventsKey)) waiting();
  });
  return {
    /** Resolves once the API reads the match's event stream, as a wait on it begins. */
    waits,
    /** The hash reads up to now (every command Redis ran before this call), and stops watching. */
    async hashReads(): Promise<number> {
      await commands.caughtUp();
      stop();
      return hashReads;
    },
  };
}

describe('POST /v1/matches/{matchId}/actions', () => {
  describe('while the worker has not recorded the move yet', () => {
    it('waits on the event stream of the match, not by reading the match again, and answers with the move as recorded', async () => {
      const { id, bot, color, move } = await unplayedMatch('late');
      const watching = watch(id);
      const answer = api.act(id, bot, move).then((res) => res);
      // Once the API reads the match's stream to wait on it.
      await Promise.race([watching.waits, answer]);
      await delay(300); // the worker takes its time
      await recordMove(id, color, move);
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.history[move.ply - 1]).toMatchObject({ ply: move.ply, square: move.action });
      expect(res.body).toEqual((await api.state(id, bot.token)).body);
      // Reading the match before answering and to answer, and no more; polling read it every few ms.
      expect(await watching.hashReads()).toBeLessThanOrEqual(6);
    });

    it('answers with the final state when the match ends first', async () => {
      const { id, bot, move } = await unplayedMatch('ended');
      const watching = watch(id);
      const answer = api.act(id, bot, move).then((res) => res);
      await Promise.race([watching.waits, answer]);
      const result = { winner: null, discs: { black: 2, white: 2 }, reason: 'aborted' } as const;
      expect(await h.stores.matches.finishMatch(id, result, Date.now(), eloRule(h.config.rating))).toBe(true);
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status).toBe('aborted');
      expect(res.body.history).toEqual([]);
      expect(await watching.hashReads()).toBeLessThanOrEqual(6);
    });
  });
});

describe('GET /v1/matches/{matchId}/state?waitMs (a long poll)', () => {
  it("reads the match once before it waits and once when the bot's turn wakes it", {
    timeout: 30_000,
  }, async () => {
    const { id, opponent, color, move } = await unplayedMatch('poll');
    const watching = watch(id);
    // The waiting bot's own stream: the long poll's wait reads it once as it begins.
    const eventsKey = h.stores.keys.botEvents(opponent.id);
    let stopListening = () => {};
    const waitBegins = new Promise<void>((resolve) => {
      stopListening = commands.listen((args) => {
        if (args[0]?.toLowerCase() === 'xread' && args.includes(eventsKey)) resolve();
      });
    });
    const begun = performance.now();
    const poll = api.state(id, opponent.token, 20_000).then((res) => res);
    await Promise.race([waitBegins, poll]).finally(stopListening);
    const turn = await openNextTurn(id, color, move, opponent);
    const res = await poll;
    // Woken by the turn, not answered at the end of its wait.
    expect(performance.now() - begun).toBeLessThan(10_000);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ toMove: turn.player, you: turn.player, ply: turn.ply });
    expect(res.body.deadline).toBe(new Date(turn.deadline).toISOString());
    // Once to decide to wait, once to answer: reading the state again before the wait doubled it.
    expect(await watching.hashReads()).toBe(2);
  });
});

describe('PullService.act', () => {
  describe('when the worker records the move between the look at the match and the wait', () => {
    it('still answers with the move as recorded: the wait starts from before the look', async () => {
      const { id, bot, color, move } = await unplayedMatch('between');
      const pull = new RedisPullStore(h.redis, h.prefix);
      // Once the action is handed over, the next read of the match (the look at whether the move is
      // recorded) answers from before the worker records it.
      let armed = false;
      const matches = new Proxy(h.stores.matches, {
        get(target, name) {
          if (name === 'getMatch') {
            return async (matchId: string) => {
              const match = await target.getMatch(matchId);
              if (armed) {
                armed = false;
                await recordMove(id, color, move);
              }
              return match;
            };
          }
          const value = Reflect.get(target, name);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const stores = { ...h.stores, matches };
      const handOver = pull.submitAction.bind(pull);
      pull.submitAction = async (...args) => {
        const outcome = await handOver(...args);
        armed = true;
        return outcome;
      };
      const service = new PullService({ stores, pull, maxStreamsPerBot: h.config.limits.maxStreamsPerBot });
      try {
        const principal = { kind: 'bot', botId: bot.id } as const;
        const { state, played } = await service.act(
          principal,
          id,
          move,
          undefined,
          new AbortController().signal,
        );
        expect(armed).toBe(false);
        expect(played).toBe(true);
        expect(state.history[move.ply - 1]).toMatchObject({ ply: move.ply, square: move.action });
      } finally {
        await pull.close();
      }
    });
  });
});

/**
 * A PullService on a pull store of its own whose first read of a match's open turn runs `meanwhile`
 * once it has read: what happens between a long poll's read of the state and its wait.
 */
function serviceWhoseTurnReadIsFollowedBy(meanwhile: () => unknown) {
  const pull = new RedisPullStore(h.redis, h.prefix);
  const readTurn = pull.getTurn.bind(pull);
  let pending = true;
  pull.getTurn = async (matchId) => {
    const turn = await readTurn(matchId);
    if (pending) {
      pending = false;
      await meanwhile();
    }
    return turn;
  };
  const service = new PullService({
    stores: h.stores,
    pull,
    maxStreamsPerBot: h.config.limits.maxStreamsPerBot,
  });
  return { pull, service, ran: () => !pending };
}

describe('PullService.awaitTurn', () => {
  describe("when the bot's turn opens between the read of the state and the wait", () => {
    it('answers at once with the turn: the wait starts from the event id read before the state', async () => {
      const { id, opponent, color, move } = await unplayedMatch('poll-between');
      // The state's read of the open turn answers from before the worker opens it.
      const { pull, service, ran } = serviceWhoseTurnReadIsFollowedBy(() =>
        openNextTurn(id, color, move, opponent),
      );
      try {
        const principal = { kind: 'bot', botId: opponent.id } as const;
        const begun = performance.now();
        const state = await service.awaitTurn(principal, id, 20_000, new AbortController().signal);
        expect(ran()).toBe(true);
        expect(state).toMatchObject({ toMove: state.you, ply: move.ply + 1 });
        expect(state.deadline).not.toBeNull();
        // Woken by the turn's event, not answered at the end of the wait.
        expect(performance.now() - begun).toBeLessThan(10_000);
      } finally {
        await pull.close();
      }
    });
  });

  describe('when the caller leaves during the read of the state', () => {
    it('answers with the state as read and takes no lease', async () => {
      const { id, opponent, color } = await unplayedMatch('poll-gone');
      const gone = new AbortController();
      const { pull, service } = serviceWhoseTurnReadIsFollowedBy(() => gone.abort());
      const streamsKey = h.stores.keys.botStreams(opponent.id);
      let leaseCommands = 0;
      const stopListening = commands.listen((args) => {
        if (args.includes(streamsKey)) leaseCommands++;
      });
      try {
        const principal = { kind: 'bot', botId: opponent.id } as const;
        const state = await service.awaitTurn(principal, id, 20_000, gone.signal);
        expect(state).toMatchObject({ you: color === 'black' ? 'white' : 'black', deadline: null });
        await commands.caughtUp();
        expect(leaseCommands).toBe(0);
      } finally {
        stopListening();
        await pull.close();
      }
    });
  });
});
