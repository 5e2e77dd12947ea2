import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RULES,
  initialPosition,
  openingById,
  openingPosition,
  openings,
  play,
  positionFromBoardText,
  RulesError,
  rulesOptions,
} from '../reversi/index.ts';
import type { Game } from './game.ts';
import { DEFAULT_GAME_ID, gameFor, registerGame, UnknownGameError } from './registry.ts';
import { reversi } from './reversi-game.ts';

const EMPTY_ROWS = Array(7).fill('........');
/** Black's only disc b1 sits beside white's corner a1: black traps nothing, white can play c1. */
const blackMustPass = positionFromBoardText(['WB......', ...EMPTY_ROWS], 'black');
/** One black disc and nothing else: neither side can place, the game is over with 63 empty squares. */
const finished = positionFromBoardText(['B.......', ...EMPTY_ROWS], 'white');

describe("Reversi's module", () => {
  describe('options', () => {
    it.each([
      ['fill what the rules leave out from the defaults', {}, DEFAULT_RULES],
      [
        "drop a match's time control",
        { captureRule: 'single-direction' as const, timeLimitMs: 1000, overageMs: 0 },
        rulesOptions({ captureRule: 'single-direction' }),
      ],
      [
        'keep every option a match names',
        { firstPlayer: 'black' as const, captureRule: 'all' as const, scoring: 'empties-to-winner' as const },
        rulesOptions({ firstPlayer: 'black', scoring: 'empties-to-winner' }),
      ],
    ])('%s', (_, rules, expected) => {
      expect(reversi.options(rules)).toEqual(expected);
    });

    it('refuse a value outside the documented ones', () => {
      expect(() => reversi.options({ scoring: 'most-corners' as never })).toThrow(RulesError);
    });
  });

  it('start from the engine’s start position, the first player to move', () => {
    const start = reversi.initialState(reversi.options({ firstPlayer: 'black' }));
    expect(start).toEqual(initialPosition(rulesOptions({ firstPlayer: 'black' })));
    expect(reversi.toMove(start)).toBe('black');
    expect(reversi.legalActions(start)).toEqual(['d3', 'c4', 'f5', 'e6']);
    expect(reversi.boardRows(start)[3]).toBe('...WB...');
  });

  describe('an opening', () => {
    const opening = openings()[0]!;

    it('is no option for the standard start, named or not: the arena plays nothing', () => {
      expect(reversi.options({ opening: 'standard' })).toEqual(DEFAULT_RULES);
      expect(reversi.openingActions(reversi.options())).toEqual([]);
    });

    it.each(['white', 'black'] as const)(
      'is played by the arena under %s-first rules to the opening position',
      (firstPlayer) => {
        const options = reversi.options({ firstPlayer, opening: opening.id });
        expect(options.opening).toBe(opening.id);
        let state = reversi.initialState(options);
        for (const action of reversi.openingActions(options)) {
          const applied = reversi.apply(state, action, options);
          if (!applied.ok) throw new Error(applied.message);
          state = applied.state;
        }
        expect(state).toEqual(openingPosition(opening, options));
        if (firstPlayer === 'black') {
          expect(reversi.openingActions(options).map((a) => a.action)).toEqual(opening.moves);
        }
      },
    );

    it('refuses an unknown id, and single-direction capture, where the recorded lines do not exist', () => {
      expect(openingById('o-00000000')).toBeUndefined();
      expect(() => reversi.options({ opening: 'o-00000000' })).toThrow(RulesError);
      expect(() => reversi.options({ opening: opening.id, captureRule: 'single-direction' })).toThrow(
        /captureRule/,
      );
      expect(() => reversi.options({ opening: 'standard', captureRule: 'single-direction' })).not.toThrow();
    });
  });

  describe('applying an action', () => {
    const start = reversi.initialState(DEFAULT_RULES);

    it('gives the next position and the flipped squares', () => {
      const applied = reversi.apply(start, { action: 'e3' }, DEFAULT_RULES);
      const played = play(start, { square: 'e3' }, DEFAULT_RULES);
      expect(applied).toEqual({ ok: true, state: played.ok && played.position, flips: ['e4'] });
    });

    it("refuses an illegal one with the engine's reason, without throwing", () => {
      const played = play(start, { square: 'a1' }, DEFAULT_RULES);
      expect(reversi.apply(start, { action: 'a1' }, DEFAULT_RULES)).toEqual({
        ok: false,
        message: !played.ok && played.error.message,
      });
      expect(reversi.apply(start, { action: 'z9' }, DEFAULT_RULES)).toMatchObject({ ok: false });
    });

    it('reads a direction under single-direction capture only, and records it only then', () => {
      const single = reversi.options({ captureRule: 'single-direction' });
      expect(reversi.apply(start, { action: 'e3', direction: 'n' }, single)).toMatchObject({ ok: false });
      expect(reversi.apply(start, { action: 'e3', direction: 'n' }, DEFAULT_RULES)).toMatchObject({
        ok: true,
      });
      expect(reversi.recordsDirection(single)).toBe(true);
      expect(reversi.recordsDirection(DEFAULT_RULES)).toBe(false);
    });
  });

  describe('passing', () => {
    it('is due exactly when the side to move has no placement and the game goes on', () => {
      expect(reversi.mustPass(blackMustPass)).toBe(true);
      expect(reversi.legalActions(blackMustPass)).toEqual([]);
      const passed = reversi.pass(blackMustPass);
      expect(reversi.toMove(passed)).toBe('white');
      expect(reversi.legalActions(passed)).toEqual(['c1']);
    });

    it('throws for a side that has a move: only the arena passes, and only then', () => {
      expect(reversi.mustPass(reversi.initialState(DEFAULT_RULES))).toBe(false);
      expect(() => reversi.pass(reversi.initialState(DEFAULT_RULES))).toThrow(RulesError);
    });
  });

  describe('the end', () => {
    it('comes when neither side can place', () => {
      expect(reversi.isOver(finished)).toBe(true);
      expect(reversi.mustPass(finished)).toBe(false);
      expect(reversi.isOver(reversi.initialState(DEFAULT_RULES))).toBe(false);
    });

    it('scores under the match’s scoring option, while counts are the discs as they stand', () => {
      expect(reversi.outcome(finished, DEFAULT_RULES)).toEqual({
        winner: 'black',
        counts: { black: 1, white: 0 },
      });
      expect(reversi.outcome(finished, reversi.options({ scoring: 'empties-to-winner' }))).toEqual({
        winner: 'black',
        counts: { black: 64, white: 0 },
      });
      expect(reversi.counts(finished, DEFAULT_RULES)).toEqual({ black: 1, white: 0 });
    });
  });
});

describe('the registry', () => {
  it('plays Reversi for a match that names no game (records from before games had ids)', () => {
    expect(DEFAULT_GAME_ID).toBe('reversi');
    expect(gameFor()).toBe(reversi);
    expect(gameFor(undefined)).toBe(reversi);
    expect(gameFor('reversi')).toBe(reversi);
  });

  it('refuses an id nobody registered with a typed error', () => {
    expect(() => gameFor('chess')).toThrow(UnknownGameError);
  });

  it('takes the same game twice, but never a second game under a taken id', () => {
    expect(() => registerGame(reversi)).not.toThrow();
    const impostor: Game<unknown, unknown> = { ...reversi };
    expect(() => registerGame(impostor)).toThrow(/another game/);
    expect(gameFor('reversi')).toBe(reversi);
  });
});
