import { describe, expect, it } from 'vitest';
import {
  initialPosition,
  isGameOver,
  legalMoves,
  mustPass,
  type Position,
  play,
  positionFromBoardText,
  type RulesOptions,
  rulesOptions,
  trappingDirections,
} from '../reversi/index.ts';
import { chooseAlphaBeta } from './alphabeta.ts';
import { chooseGreedy } from './greedy.ts';
import { playGame, turnOf } from './play.ts';
import { chooseRandom, seededRandom } from './random.ts';
import type { Action } from './turn.ts';

const VARIANTS: Record<string, RulesOptions> = {
  'the default rules': rulesOptions(),
  'single-direction capture, black first': rulesOptions({
    captureRule: 'single-direction',
    firstPlayer: 'black',
  }),
};

/** Positions (with a move to make) met in random games from the start. */
function reachablePositions(rules: RulesOptions, games: number, seed: number): Position[] {
  const random = seededRandom(seed);
  const positions: Position[] = [];
  for (let game = 0; game < games; game++) {
    let position = initialPosition(rules);
    while (!isGameOver(position)) {
      if (mustPass(position)) {
        const passed = play(position, { square: 'pass' }, rules);
        if (!passed.ok) throw passed.error;
        position = passed.position;
        continue;
      }
      positions.push(position);
      const move = chooseRandom(turnOf(position, rules), random);
      const next = play(position, { square: move.action, direction: move.direction }, rules);
      if (!next.ok) throw next.error;
      position = next.position;
    }
  }
  return positions;
}

function flipsOf(position: Position, action: Action, rules: RulesOptions): number {
  const result = play(position, { square: action.action, direction: action.direction }, rules);
  if (!result.ok) throw new Error(`${JSON.stringify(action)} is illegal: ${result.error.message}`);
  return result.flips.length;
}

/** Every move's flip count, found square by square and direction by direction. */
function allFlipCounts(position: Position, rules: RulesOptions): { action: Action; flips: number }[] {
  return legalMoves(position).flatMap((square) =>
    rules.captureRule === 'single-direction'
      ? trappingDirections(position, square).map((direction) => {
          const action = { action: square, direction };
          return { action, flips: flipsOf(position, action, rules) };
        })
      : [{ action: { action: square }, flips: flipsOf(position, { action: square }, rules) }],
  );
}

describe('the example bots', () => {
  for (const [name, rules] of Object.entries(VARIANTS)) {
    describe(`under ${name}`, () => {
      const positions = reachablePositions(rules, 4, 7);

      it('samples positions from every stage of the game', () => {
        expect(positions.length).toBeGreaterThan(200);
      });

      it('random, greedy and alpha-beta always answer a legal move', () => {
        const random = seededRandom(99);
        for (const position of positions) {
          const turn = turnOf(position, rules);
          for (const action of [chooseRandom(turn, random), chooseGreedy(turn), chooseAlphaBeta(turn, 2)]) {
            expect(legalMoves(position)).toContain(action.action);
            expect(() => flipsOf(position, action, rules)).not.toThrow();
            if (rules.captureRule === 'all') expect(action.direction).toBeUndefined();
          }
        }
      });

      it('greedy picks the first move that flips the most discs', () => {
        for (const position of positions) {
          const counts = allFlipCounts(position, rules);
          const most = Math.max(...counts.map((count) => count.flips));
          const chosen = chooseGreedy(turnOf(position, rules));
          expect(flipsOf(position, chosen, rules)).toBe(most);
          expect(chosen).toEqual(counts.find((count) => count.flips === most)?.action);
        }
      });
    });
  }

  describe('greedy', () => {
    it('takes three discs over one', () => {
      const board = ['BWWW....', '........', '..WB....', ...Array<string>(5).fill('........')];
      const turn = turnOf(positionFromBoardText(board, 'black'), rulesOptions());
      expect(chooseGreedy(turn)).toEqual({ action: 'e1' });
    });

    it('breaks ties in a1..h8 order', () => {
      expect(chooseGreedy(turnOf(initialPosition(), rulesOptions()))).toEqual({ action: 'e3' });
    });
  });

  describe('alpha-beta', () => {
    it('takes a corner that is on offer', () => {
      const board = [
        '........',
        '.W......',
        '..B.....',
        '...WB...',
        '...BW...',
        '........',
        '........',
        '........',
      ];
      const turn = turnOf(positionFromBoardText(board, 'black'), rulesOptions());
      expect(chooseAlphaBeta(turn, 3)).toEqual({ action: 'a1' });
    });

    it('beats the random bot in most games', () => {
      const rules = rulesOptions();
      let wins = 0;
      for (let game = 0; game < 10; game++) {
        const random = seededRandom(1000 + game);
        const searcher = (turn: Parameters<typeof chooseGreedy>[0]) => chooseAlphaBeta(turn, 2);
        const randomBot = (turn: Parameters<typeof chooseGreedy>[0]) => chooseRandom(turn, random);
        const searcherColor = game % 2 === 0 ? 'white' : 'black';
        const result = playGame(
          searcherColor === 'white'
            ? { white: searcher, black: randomBot }
            : { white: randomBot, black: searcher },
          rules,
        );
        if (result.winner === searcherColor) wins++;
      }
      expect(wins).toBeGreaterThanOrEqual(8);
    });
  });

  describe('seededRandom', () => {
    it('repeats for a seed and stays in [0, 1)', () => {
      const a = seededRandom(5);
      const b = seededRandom(5);
      for (let i = 0; i < 1000; i++) {
        const value = a();
        expect(value).toBe(b());
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThan(1);
      }
    });
  });
});
