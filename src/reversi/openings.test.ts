import { describe, expect, it } from 'vitest';
import { legalMoves } from './game.ts';
import {
  canonicalKey,
  type Opening,
  openingById,
  openingMoves,
  openingPosition,
  openings,
  STANDARD_OPENING,
  transformPosition,
} from './openings.ts';
import data from './openings-data.json' with { type: 'json' };
import { DEFAULT_RULES, opponent, rulesOptions } from './options.ts';
import { boardText, initialPosition, type Position, positionFromBoardText } from './position.ts';

const BLACK_FIRST = rulesOptions({ firstPlayer: 'black' });
const WHITE_FIRST = DEFAULT_RULES;

// The board's symmetries built from board text by hand, apart from the code under test.
const mirrorFiles = (rows: string[]) => rows.map((row) => [...row].reverse().join(''));
const mirrorRanks = (rows: string[]) => [...rows].reverse();
const transpose = (rows: string[]) => rows.map((_, i) => rows.map((row) => row[i]).join(''));
const swapColours = (rows: string[]) =>
  rows.map((row) => row.replace(/[BW]/g, (c) => (c === 'B' ? 'W' : 'B')));

function eightImages(rows: string[]): string[][] {
  const four = [rows, mirrorFiles(rows), mirrorRanks(rows), mirrorFiles(mirrorRanks(rows))];
  return [...four, ...four.map(transpose)];
}

const images = (pos: Position) =>
  eightImages(boardText(pos)).map((rows) => positionFromBoardText(rows, pos.toMove));

// No symmetry maps this onto itself: three discs in an L off the corner, one far away.
const LOPSIDED = positionFromBoardText(
  ['BW......', 'B.......', '........', '........', '........', '........', '.......W', '........'],
  'black',
);

describe('canonicalKey', () => {
  it('gives a position and each of its 8 images the same key', () => {
    const all = images(LOPSIDED);
    expect(new Set(all.map((p) => boardText(p).join('/'))).size).toBe(8);
    expect(new Set(all.map(canonicalKey))).toEqual(new Set([canonicalKey(LOPSIDED)]));
  });

  it('tells apart a different position with as many discs', () => {
    const moved = positionFromBoardText(
      ['BW......', '.B......', '........', '........', '........', '........', '.......W', '........'],
      'black',
    );
    expect(canonicalKey(moved)).not.toBe(canonicalKey(LOPSIDED));
  });

  it('tells apart the other side to move and the colours swapped', () => {
    const otherSide = positionFromBoardText(boardText(LOPSIDED), 'white');
    const swapped = positionFromBoardText(swapColours(boardText(LOPSIDED)), 'black');
    expect(canonicalKey(otherSide)).not.toBe(canonicalKey(LOPSIDED));
    expect(canonicalKey(swapped)).not.toBe(canonicalKey(LOPSIDED));
  });

  it('is built on transformPosition, whose 8 images are the board-text ones', () => {
    const byCode = Array.from({ length: 8 }, (_, s) => boardText(transformPosition(LOPSIDED, s)).join('/'));
    const byHand = images(LOPSIDED).map((p) => boardText(p).join('/'));
    expect(new Set(byCode)).toEqual(new Set(byHand));
  });
});

describe('openingMoves', () => {
  const line: Opening = { ...STANDARD_OPENING, id: 'test', moves: ['f5', 'd6', 'c3', 'h8'] };

  it('returns the recorded moves under black-first rules', () => {
    expect(openingMoves(line, BLACK_FIRST)).toEqual(['f5', 'd6', 'c3', 'h8']);
  });

  it('mirrors every square across the ranks under white-first rules', () => {
    expect(openingMoves(line, WHITE_FIRST)).toEqual(['f4', 'd3', 'c6', 'h1']);
  });
});

describe('openingById', () => {
  it('finds every shipped opening', () => {
    for (const opening of openings()) expect(openingById(opening.id)).toBe(opening);
  });

  it("gives 'standard' as no moves: the start position under any rules", () => {
    const standard = openingById('standard')!;
    expect(standard.moves).toEqual([]);
    expect(standard.games).toBe(data.criteria.archiveGames);
    for (const rules of [BLACK_FIRST, WHITE_FIRST, rulesOptions({ captureRule: 'single-direction' })]) {
      expect(openingPosition(standard, rules)).toEqual(initialPosition(rules));
    }
  });

  it('finds nothing for an unknown id', () => {
    expect(openingById('o-nothere')).toBeUndefined();
  });
});

describe('openingPosition', () => {
  it('rejects a line with an illegal move with the play error', () => {
    const bad: Opening = { ...STANDARD_OPENING, id: 'bad', moves: ['f5', 'a1'] };
    expect(() => openingPosition(bad, BLACK_FIRST)).toThrow(
      expect.objectContaining({ code: 'reversi/illegal-move' }),
    );
  });

  it('refuses single-direction capture, under which the recorded lines do not exist', () => {
    const rules = rulesOptions({ firstPlayer: 'black', captureRule: 'single-direction' });
    expect(() => openingPosition(openings()[0]!, rules)).toThrow(
      expect.objectContaining({ code: 'reversi/invalid-rules' }),
    );
  });
});

describe('the shipped openings', () => {
  const shipped = openings();

  it('are a few hundred, with unique ids of the documented form', () => {
    expect(shipped.length).toBeGreaterThanOrEqual(100);
    expect(new Set(shipped.map((o) => o.id)).size).toBe(shipped.length);
    for (const { id } of shipped) expect(id).toMatch(/^o-[0-9a-f]{8}$/);
  });

  it('are 6 to 10 plies each and meet the criteria they were chosen by', () => {
    const [low, high] = data.criteria.meanScore as [number, number];
    for (const o of shipped) {
      expect(o.moves.length, o.id).toBeGreaterThanOrEqual(6);
      expect(o.moves.length, o.id).toBeLessThanOrEqual(10);
      expect(o.games, o.id).toBeGreaterThanOrEqual(data.criteria.minGames);
      expect(o.meanScore, o.id).toBeGreaterThanOrEqual(low);
      expect(o.meanScore, o.id).toBeLessThanOrEqual(high);
    }
  });

  it('replay legally under black-first rules to a position where the side to move can place', () => {
    for (const o of shipped) {
      const pos = openingPosition(o, BLACK_FIRST);
      expect(pos.toMove, o.id).toBe(o.moves.length % 2 === 0 ? 'black' : 'white');
      expect(legalMoves(pos).length, o.id).toBeGreaterThan(0);
    }
  });

  it('replay legally under white-first rules to the black-first position mirrored, colours swapped', () => {
    for (const o of shipped) {
      const blackFirst = openingPosition(o, BLACK_FIRST);
      const whiteFirst = openingPosition(o, WHITE_FIRST);
      expect(boardText(whiteFirst), o.id).toEqual(swapColours(mirrorRanks(boardText(blackFirst))));
      expect(whiteFirst.toMove, o.id).toBe(opponent(blackFirst.toMove));
    }
  });

  it('are pairwise different positions under the 8 symmetries', () => {
    const keys = shipped.map((o) => canonicalKey(openingPosition(o, BLACK_FIRST)));
    expect(new Set(keys).size).toBe(shipped.length);
  });
});
