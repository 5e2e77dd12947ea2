import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PullService } from '../../src/arena/pull.ts';
import type { MatchState } from '../../src/contract/index.ts';
import type { LiveTurn } from '../../src/model/live-events.ts';
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
  return openTurn(id, move.ply + 1, player, opponent);
}

/**
 * Opens a pull bot's turn as PullPlayer does: its `yourTurn` told on the bot's stream, carrying the
 * state the bot reads once the turn is open (the state before, with the turn's deadline).
 */
async function openTurn(
  id: string,
  ply: number,
  player: Color,
  bot: RegisteredBot,
  timeoutMs = 10_000,
  before?: MatchState,
) {
  const state = before ?? ((await api.state(id, bot.token)).body as MatchState);
  const turn = {
    matchId: id,
    ply,
    player,
    botId: bot.id,
    deadline: Date.now() + timeoutMs,
    timeoutMs,
    run: 'test-run',
    ratings: { black: 1500, white: 1500 },
  };
  const pull = new RedisPullStore(h.redis, h.prefix);
  try {
    const told: MatchState = { ...state, deadline: new Date(turn.deadline).toISOString() };
    await pull.openTurn(turn, JSON.stringify(told));
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

/**
 * The commands run on match `id`'s keys from now on, by name (scripts' own commands apart, as
 * `lua:<name>`): other requests' (the rate limits' batches, say) are not this action's.
 */
async function countCommands(id: string) {
  const matchKeys = h.stores.keys.match(id);
  // MONITOR tells commands after they ran: those run before now must be told before counting starts.
  await commands.caughtUp();
  const counted = new Map<string, number>();
  const stop = commands.listen((args, source) => {
    if (!args.some((arg) => arg.startsWith(matchKeys))) return;
    const name = `${source === 'lua' ? 'lua:' : ''}${args[0]?.toLowerCase() ?? ''}`;
    counted.set(name, (counted.get(name) ?? 0) + 1);
  });
  return async () => {
    await commands.caughtUp();
    stop();
    return counted;
  };
}

describe('POST /v1/matches/{matchId}/actions (one writer per ply)', () => {
  it('records the move through the open turn in one step and answers with it, waiting for no worker', async () => {
    const { id, bot, color, move } = await unplayedMatch('one-writer');
    await openTurn(id, move.ply, color, bot);
    const counting = await countCommands(id);
    const res = await api.act(id, bot, move);
    const counted = await counting();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.history[move.ply - 1]).toMatchObject({ ply: move.ply, square: move.action });
    expect(res.body).toEqual((await api.state(id, bot.token)).body);
    // The store holds the ply, written as the run that opened the turn, which is closed.
    const stored = await h.stores.matches.getMatch(id);
    expect(stored?.moveCount).toBe(move.ply);
    expect(await h.redis.hget(h.stores.keys.match(id), 'moveWriter')).toBe(`test-run:${move.ply}`);
    expect(await h.redis.exists(h.stores.keys.turn(id))).toBe(0);
    // Spectators (and the worker) hear of it on the match's stream, with the turn after it.
    const [event] = await h.redis.xrevrange(h.stores.keys.matchEvents(id), '+', '-', 'COUNT', 1);
    const data = JSON.parse(event?.[1][3] ?? '{}');
    expect(data.move).toMatchObject({ ply: move.ply, square: move.action });
    expect(data.turn).toMatchObject({ ply: move.ply + 1 });
    // One read and one script: no wait on the match's events, no second look at the match.
    expect(counted.get('xread') ?? 0).toBe(0);
    // (EVAL the first time on this server, EVALSHA after.)
    expect((counted.get('evalsha') ?? 0) + (counted.get('eval') ?? 0)).toBe(1);
    expect(counted.get('hgetall')).toBe(2); // the match and its turn, in one round trip
  });

  it("refuses a move after the turn's time, by the store's clock, and records nothing", async () => {
    const { id, bot, color, move } = await unplayedMatch('too-late');
    await openTurn(id, move.ply, color, bot, 1);
    await delay(20);
    const res = await api.act(id, bot, move);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe('matches/not-your-turn');
    expect(res.body.detail).toMatch(/ran out/);
    expect((await h.stores.matches.getMatch(id))?.moveCount).toBe(0);
  });

  it('takes a move posted just before its turn opens, once it opens', async () => {
    const { id, bot, color, move } = await unplayedMatch('early');
    const answer = api.act(id, bot, move).then((res) => res);
    await delay(200);
    await openTurn(id, move.ply, color, bot);
    const res = await answer;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await h.stores.matches.getMatch(id))?.moveCount).toBe(move.ply);
  });

  it('refuses a move whose turn does not open, after a short wait', async () => {
    const { id, bot, move } = await unplayedMatch('never-opened');
    const res = await api.act(id, bot, move);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.code).toBe('matches/not-your-turn');
    expect((await h.stores.matches.getMatch(id))?.moveCount).toBe(0);
  });

  it('records one of two posts of the same ply at once; the other is a retry or a conflict', async () => {
    const { id, bot, color, move } = await unplayedMatch('racing');
    const turn = (await api.state(id, bot.token)).body as MatchState;
    const other = {
      action: turn.legalMoves.find((square) => square !== move.action) ?? move.action,
      ply: move.ply,
    };
    await openTurn(id, move.ply, color, bot);
    const posts = [move, move, other];
    const answers = await Promise.all(posts.map((body) => api.act(id, bot, body)));
    const moves = await h.stores.matches.getMoves(id);
    expect(moves).toHaveLength(move.ply);
    const recorded = moves[move.ply - 1]?.square;
    // The post that won and its retries answer 200; a different action for the ply is a conflict.
    posts.forEach((body, i) => {
      const res = answers[i];
      if (body.action === recorded) expect(res?.status, JSON.stringify(res?.body)).toBe(200);
      else expect(res?.body.code).toBe('matches/ply-taken');
    });
  });
});

describe('GET /v1/matches/{matchId}/state?waitMs (a long poll)', () => {
  it("reads the match once, before it waits: the bot's turn wakes it with the turn's state", {
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
    // Once to decide to wait.
    expect(await watching.hashReads()).toBe(1);
    // The worker's side: the ply recorded, then the turn opened with the state the bot reads then.
    await recordMove(id, color, move);
    const before = (await api.state(id, opponent.token)).body as MatchState;
    const waking = watch(id);
    const turn = await openTurn(id, move.ply + 1, before.you, opponent, 10_000, before);
    const res = await poll;
    // Woken by the turn, not answered at the end of its wait.
    expect(performance.now() - begun).toBeLessThan(10_000);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ toMove: turn.player, you: turn.player, ply: turn.ply });
    expect(res.body.deadline).toBe(new Date(turn.deadline).toISOString());
    // Answered with the state the turn's event carries, as a read has it, without reading the match.
    expect(await waking.hashReads()).toBe(0);
    expect(res.body).toEqual((await api.state(id, opponent.token)).body);
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
