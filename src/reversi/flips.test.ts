import { describe, expect, it } from 'vitest';
import { boardWith } from '../../test/reversi/boards.ts';
import { type Move, play, trappingDirections } from './game.ts';
import { DEFAULT_RULES, rulesOptions } from './options.ts';
import { boardText, type Position } from './position.ts';
import type { Direction, Square } from './squares.ts';

function played(pos: Position, move: Move, rules = DEFAULT_RULES) {
  const result = play(pos, move, rules);
  if (!result.ok) throw new Error(`expected ${move.square} to be legal, got ${result.error.code}`);
  return result;
}

describe('placing a disc', () => {
  // Black places on d5 each time; the line in the named direction is two white discs then a black one.
  const directionCases: { direction: Direction; white: Square[]; closer: Square }[] = [
    { direction: 'n', white: ['d4', 'd3'], closer: 'd2' },
    { direction: 'ne', white: ['e4', 'f3'], closer: 'g2' },
    { direction: 'e', white: ['e5', 'f5'], closer: 'g5' },
    { direction: 'se', white: ['e6', 'f7'], closer: 'g8' },
    { direction: 's', white: ['d6', 'd7'], closer: 'd8' },
    { direction: 'sw', white: ['c6', 'b7'], closer: 'a8' },
    { direction: 'w', white: ['c5', 'b5'], closer: 'a5' },
    { direction: 'nw', white: ['c4', 'b3'], closer: 'a2' },
  ];
  describe.each(directionCases)('with a trapped line toward $direction', ({ direction, white, closer }) => {
    const pos = boardWith([closer], white);
    it('flips that line', () => {
      const result = played(pos, { square: 'd5' });
      expect(result.flips).toEqual(
        [...white].sort((a, b) => Number(a[1]) - Number(b[1]) || a.localeCompare(b)),
      );
      const after = boardWith(['d5', closer, ...white], [], 'white');
      expect(result.position).toEqual(after);
    });
    it(`reports ${direction} as the only trapping direction`, () => {
      expect(trappingDirections(pos, 'd5')).toEqual([direction]);
    });
  });

  const brokenCases: { name: string; black: Square[]; white: Square[] }[] = [
    { name: 'a gap between the opponent discs and the own disc', black: ['d1'], white: ['d4', 'd3'] },
    { name: 'a gap right next to the placed disc', black: ['d2'], white: ['d3'] },
    { name: 'a line of opponent discs running to the edge', black: [], white: ['d4', 'd3', 'd2', 'd1'] },
    { name: 'an own disc right next to the placed disc', black: ['d4', 'd2'], white: ['d3'] },
  ];
  describe.each(brokenCases)('with $name', ({ black, white }) => {
    it('traps nothing, so the move is illegal', () => {
      // h8/g8 give black a legal move elsewhere (f8), so the game is not over.
      const result = play(boardWith([...black, 'h8'], [...white, 'g8']), { square: 'd5' }, DEFAULT_RULES);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe('reversi/illegal-move');
    });
  });

  describe('when other trapped-looking lines do not pass through the placed disc', () => {
    // e6 sits between e5 and e7 and c1 between b1 and d1, but no line from d5 runs through them.
    const pos = boardWith(['d3', 'e5', 'e7', 'b1', 'd1'], ['d4', 'e6', 'c1']);
    it('flips only the line through the placed disc', () => {
      const result = played(pos, { square: 'd5' });
      expect(result.flips).toEqual(['d4']);
      expect(boardText(result.position)).toEqual([
        '.BWB....',
        '........',
        '...B....',
        '...B....',
        '...BB...',
        '....W...',
        '....B...',
        '........',
      ]);
    });
  });

  describe('when the placement traps several lines', () => {
    const pos = boardWith(['d3', 'f5', 'f7', 'a8'], ['d4', 'e5', 'e6', 'c6', 'b7']);
    it('flips every trapped line and nothing else', () => {
      const result = played(pos, { square: 'd5' });
      expect(result.flips).toEqual(['d4', 'e5', 'c6', 'e6', 'b7']);
      expect(trappingDirections(pos, 'd5')).toEqual(['n', 'e', 'se', 'sw']);
    });
  });
});

describe('single-direction capture', () => {
  const rules = rulesOptions({ captureRule: 'single-direction' });
  // From d5, black traps d4 (n, closed by d3) and e5 (e, closed by f5).
  const pos = boardWith(['d3', 'f5'], ['d4', 'e5']);

  it('flips only the named line', () => {
    const result = played(pos, { square: 'd5', direction: 'e' }, rules);
    expect(result.flips).toEqual(['e5']);
    expect(result.position).toEqual(boardWith(['d3', 'd5', 'e5', 'f5'], ['d4'], 'white'));
  });

  const errorCases: { name: string; move: Move; code: string }[] = [
    {
      name: 'no direction for a placement trapping two lines',
      move: { square: 'd5' },
      code: 'direction-required',
    },
    {
      name: 'a direction that traps nothing',
      move: { square: 'd5', direction: 's' },
      code: 'invalid-direction',
    },
    {
      name: 'a name that is not a direction',
      move: { square: 'd5', direction: 'up' as Direction },
      code: 'invalid-direction',
    },
  ];
  describe.each(errorCases)('when the move gives $name', ({ move, code }) => {
    it(`rejects it with reversi/${code}`, () => {
      const result = play(pos, move, rules);
      expect(result.ok ? 'ok' : result.error.code).toBe(`reversi/${code}`);
    });
  });

  it('needs no direction when only one line is trapped', () => {
    const single = boardWith(['d3'], ['d4', 'e5']);
    expect(played(single, { square: 'd5' }, rules).flips).toEqual(['d4']);
  });

  it('ignores a direction under the default all-lines capture', () => {
    expect(played(pos, { square: 'd5', direction: 'e' }).flips).toEqual(['d4', 'e5']);
  });
});
