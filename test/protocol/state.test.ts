import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { BotState } from '../../src/contract/index.ts';
import { gameFor } from '../../src/game/index.ts';
import type { MatchRecord, MoveRecord } from '../../src/model/records.ts';
import { replay } from '../../src/model/replay.ts';
import { matchState } from '../../src/protocol/match-state.ts';
import { botState, StateWriter, type TurnContext, WireHistory } from '../../src/protocol/state.ts';
import { seededRandom } from '../../src/support/random.ts';

/**
 * The JSON bots receive is pinned by golden files: a change to the wire shape shows up here as a
 * diff to review, never silently. Regenerate a file only for an intended protocol change.
 */
const golden = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/protocol/${name}.json`, import.meta.url), 'utf8')) as unknown;

const match: MatchRecord = {
  id: 'match_01JC3S2Q7G5T1XK0V3JH3W6R2D',
  black: { id: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', name: 'greedy-bot' },
  white: { id: 'bot_01JC3S0T7XK1S3V9D9A7B2E6RM', name: 'deep-bot' },
  rules: { firstPlayer: 'white', captureRule: 'all', scoring: 'discs', timeLimitMs: 1000, overageMs: 5000 },
  rated: true,
  status: 'running',
  createdBy: 'admin',
  createdAt: 1_764_680_000_000,
  startedAt: 1_764_680_000_100,
  finishedAt: null,
  moveCount: 3,
  result: null,
  ratings: null,
};
const moves: MoveRecord[] = [
  { ply: 1, player: 'white', square: 'e3', flips: ['e4'], latencyMs: 12 },
  { ply: 2, player: 'black', square: 'f3', flips: ['e4'], latencyMs: 1500 },
  { ply: 3, player: 'white', square: 'c5', flips: ['d5'], latencyMs: 30 },
];

describe('the state sent to a push bot', () => {
  it('matches the golden file for the first move', () => {
    const state: BotState = botState({
      match,
      moves: [],
      position: replay(match.rules, []).position,
      timeLimitMs: 1000,
      remainingOverageMs: 5000,
      lastLatencyMs: null,
      opponentRating: 1516,
    });
    expect(state).toEqual(golden('state-first-move'));
  });

  it('matches the golden file in mid-game, with history and a spent overage bank', () => {
    const game = replay(match.rules, moves);
    const state = botState({
      match,
      moves,
      position: game.position,
      timeLimitMs: 1000,
      remainingOverageMs: game.banks.black,
      lastLatencyMs: game.lastLatency.black,
      opponentRating: 1484,
    });
    expect(state).toEqual(golden('state-mid-game'));
  });
});

describe('the state after a balanced opening', () => {
  it('matches the golden file: the arena’s plies marked in the history, the opening in the rules', () => {
    const opened: MatchRecord = { ...match, rules: { ...match.rules, opening: 'o-1ea3b3b1' }, moveCount: 6 };
    // o-1ea3b3b1 is f5 d6 c3 d3 c4 f4 black first; white first it is mirrored across the ranks.
    const plies: [MoveRecord['player'], string, string][] = [
      ['white', 'f4', 'e4'],
      ['black', 'd3', 'd4'],
      ['white', 'c6', 'd5'],
      ['black', 'd6', 'd5'],
      ['white', 'c5', 'd5'],
      ['black', 'f5', 'e4'],
    ];
    const opening: MoveRecord[] = plies.map(([player, square, flip], i) => ({
      ply: i + 1,
      player,
      square,
      flips: [flip],
      latencyMs: 0,
      opening: true,
    }));
    const game = replay(opened.rules, opening);
    const state = botState({
      match: opened,
      moves: opening,
      position: game.position,
      timeLimitMs: 1000,
      remainingOverageMs: game.banks.white,
      lastLatencyMs: game.lastLatency.white,
      opponentRating: 1484,
    });
    expect(state).toEqual(golden('state-after-opening'));
  });
});

describe('the state served to a pull bot', () => {
  it('matches the golden file, with whose turn it is and the deadline', () => {
    const state = matchState({
      match,
      moves,
      viewer: 'black',
      ratings: { black: 1516, white: 1484 },
      deadline: Date.UTC(2025, 11, 2, 12, 0, 6),
    });
    expect(state).toEqual(golden('match-state-pull'));
  });
});

describe('the state’s JSON written from its parts around the kept history (StateWriter, WireHistory)', () => {
  const withDirections: MoveRecord[] = [
    { ply: 1, player: 'white', square: 'e3', direction: 's', flips: ['e4'], latencyMs: 12 },
    { ply: 2, player: 'black', square: 'pass', flips: [], latencyMs: 0 },
    { ply: 3, player: 'white', square: 'c5', flips: ['d5'], latencyMs: 30, opening: true },
  ];
  // More than the history's first kilobyte: its buffer grows, keeping what it held.
  const sixty: MoveRecord[] = Array.from({ length: 60 }, (_, i) => ({
    ply: i + 1,
    player: i % 2 === 0 ? 'white' : 'black',
    square: `${'abcdefgh'[i % 8]}${(i % 8) + 1}`,
    flips: [],
    latencyMs: i,
  }));
  const cases: [string, readonly MoveRecord[], string][] = [
    ['no moves', [], match.white.name],
    ['three moves', moves, match.white.name],
    ['directions, a pass and an opening ply', withDirections, match.white.name],
    ['sixty moves', sixty, match.white.name],
    ['an opponent named beyond ASCII', moves, 'Ünïcødé ♟ 黒'],
  ];
  it.each(cases)('is JSON.stringify of the state, byte for byte: %s', (_name, played, opponentName) => {
    const history = new WireHistory();
    for (const move of played) history.push(move);
    const turn = {
      match: {
        ...match,
        white: { ...match.white, name: opponentName },
        black: { ...match.black, name: opponentName },
      },
      moves: played,
      position: replay(match.rules, []).position,
      timeLimitMs: 1000,
      remainingOverageMs: 4000,
      lastLatencyMs: played.length === 0 ? null : 12,
      opponentRating: 1500.5,
    };
    const kept = botState({ ...turn, history });
    expect(kept).toEqual(botState(turn));
    const body = new StateWriter(turn.match, 'white').body({ ...turn, history }, history);
    expect(body.equals(Buffer.from(JSON.stringify(botState(turn))))).toBe(true);
    expect(body.toString('utf8')).toBe(JSON.stringify(botState(turn)));
    // A state handed out keeps its history when the match's goes on.
    history.push({ ply: played.length + 1, player: 'black', square: 'f5', flips: [], latencyMs: 1 });
    expect(kept.history).toHaveLength(played.length);
  });

  /** Every turn of a random game from the start, each state as the runner writes it beside botState's. */
  function compareWholeGame(record: MatchRecord, seed: number): number {
    const game = gameFor(record.game);
    const options = game.options(record.rules);
    const random = seededRandom(seed);
    const history = new WireHistory();
    const writers = {
      black: new StateWriter(record, 'black'),
      white: new StateWriter(record, 'white'),
    };
    const played: MoveRecord[] = [];
    let position = game.initialState(options);
    let compared = 0;
    while (!game.isOver(position)) {
      const you = game.toMove(position);
      if (game.mustPass(position)) {
        played.push({ ply: played.length + 1, player: you, square: 'pass', flips: [], latencyMs: 0 });
        history.push(played.at(-1)!);
        position = game.pass(position);
        continue;
      }
      const turn: TurnContext = {
        match: record,
        moves: played,
        position,
        timeLimitMs: record.rules.timeLimitMs,
        remainingOverageMs: 5000 - played.length * 37,
        lastLatencyMs: played.length < 2 ? null : played.length * 3,
        opponentRating: you === 'black' ? 1520 : 1480,
      };
      const expected = JSON.stringify(botState(turn));
      expect(writers[you].body({ ...turn, history }, history).toString('utf8')).toBe(expected);
      compared++;
      const actions = game.legalActions(position);
      const action = actions[Math.floor(random() * actions.length)]!;
      const applied = game.apply(position, { action }, options);
      if (!applied.ok) throw new Error(applied.message);
      played.push({
        ply: played.length + 1,
        player: you,
        square: action,
        flips: applied.flips,
        latencyMs: 4,
      });
      history.push(played.at(-1)!);
      position = applied.state;
    }
    return compared;
  }

  it.each([
    ['white first (the arena’s rules)', 'white'],
    ['black first (tournament Othello)', 'black'],
  ] as const)('writes every turn of whole games as botState does: %s', (_name, firstPlayer) => {
    const record: MatchRecord = { ...match, rules: { ...match.rules, firstPlayer } };
    let compared = 0;
    for (let seed = 1; seed <= 5; seed++) compared += compareWholeGame(record, seed);
    expect(compared).toBeGreaterThan(200);
  });

  it('writes the opponent’s rating the turn gives, and refuses the other side’s state', () => {
    const position = replay(match.rules, []).position;
    const turn: TurnContext = {
      match,
      moves: [],
      position,
      timeLimitMs: 1000,
      remainingOverageMs: 5000,
      lastLatencyMs: null,
      opponentRating: 1500,
    };
    const history = new WireHistory();
    const writer = new StateWriter(match, 'white');
    expect(JSON.parse(writer.body(turn, history).toString('utf8'))).toEqual(botState(turn));
    // A later turn with another rating (the opponent's changed between runs' reads) shows it.
    const rerated = { ...turn, opponentRating: 1400 };
    expect(JSON.parse(writer.body(rerated, history).toString('utf8'))).toEqual(botState(rerated));
    expect(() => new StateWriter(match, 'black').body(turn, history)).toThrow(/other side/);
  });
});
