import { describe, expect, it } from 'vitest';
import type { AnyGame } from '../game/index.ts';
import { gameFor } from '../game/index.ts';
import { DEFAULT_RULES, initialPosition, positionFromBoardText } from '../reversi/index.ts';
import { liveTurn, type TurnStart } from './live-turn.ts';

const reversi = gameFor('reversi') as AnyGame;
const EMPTY_ROWS = Array(7).fill('........');
/** Black's only disc b1 sits beside white's corner a1: black traps nothing and must pass. */
const blackMustPass = positionFromBoardText(['WB......', ...EMPTY_ROWS], 'black');
/** One black disc and nothing else: the game is over. */
const over = positionFromBoardText(['B.......', ...EMPTY_ROWS], 'white');

const start = (changes: Partial<TurnStart>): TurnStart => ({
  game: reversi,
  position: initialPosition(DEFAULT_RULES),
  ply: 1,
  openingPlies: 0,
  timeLimitMs: 1000,
  banks: { black: 5000, white: 4200 },
  lastLatency: { black: null, white: 1800 },
  now: 1_000_000,
  ...changes,
});

describe('the turn spectators are told of', () => {
  it.each([
    ["a bot's turn: its limit plus what is left of its bank, from now", start({}), 'white', 1_005_200],
    [
      'an opening ply, which the arena plays itself: no deadline',
      start({ ply: 2, openingPlies: 3 }),
      'white',
      null,
    ],
    [
      'the first ply after the opening: a deadline again',
      start({ ply: 4, openingPlies: 3 }),
      'white',
      1_005_200,
    ],
    [
      'a side that must pass (the arena passes for it): no deadline',
      start({ position: blackMustPass }),
      'black',
      null,
    ],
    ['the end of the game: nobody to move, no deadline', start({ position: over }), null, null],
  ])('%s', (_name, turn, toMove, deadline) => {
    expect(liveTurn(turn)).toMatchObject({ ply: turn.ply, toMove, deadline });
  });

  it('shows the clocks as they stand, a bank never below 0', () => {
    const turn = liveTurn(start({ banks: { black: -3, white: 4200 } }));
    expect(turn.banks).toEqual({ black: 0, white: 4200 });
    expect(turn.lastLatency).toEqual({ black: null, white: 1800 });
  });
});
