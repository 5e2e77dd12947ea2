import { describe, expect, it } from 'vitest';
import { RulesError } from './errors.ts';
import { rulesOptions } from './options.ts';
import {
  boardText,
  discCounts,
  initialPosition,
  positionFromBoards,
  positionFromBoardText,
} from './position.ts';

const SAMPLE = [
  'B......W',
  '.B....W.',
  '..B..W..',
  '...BW...',
  '...WB...',
  '..W..B..',
  '.W....B.',
  'W......B',
];

describe('positions', () => {
  it('start with two discs each and the first player of the rules to move', () => {
    expect(discCounts(initialPosition())).toEqual({ black: 2, white: 2, empty: 60 });
    expect(initialPosition(rulesOptions({ firstPlayer: 'black' })).toMove).toBe('black');
  });

  it('are frozen', () => {
    expect(Object.isFrozen(initialPosition())).toBe(true);
  });

  it('round-trip through board text, rank 1 first', () => {
    const pos = positionFromBoardText(SAMPLE, 'white');
    expect(boardText(pos)).toEqual(SAMPLE);
    expect(pos.toMove).toBe('white');
    expect(discCounts(pos)).toEqual({ black: 8, white: 8, empty: 48 });
  });

  it('round-trip every one of the 3^8 rank contents on every rank', () => {
    // boardText reads ranks from a cache keyed by content: each board here puts a different content
    // on each rank, and over the loop every rank sees all 6,561.
    const rowOf = (code: number) =>
      Array.from({ length: 8 }, (_, file) => '.BW'[Math.floor(code / 3 ** file) % 3]).join('');
    for (let code = 0; code < 6561; code++) {
      const rows = Array.from({ length: 8 }, (_, rank) => rowOf((code + rank * 821) % 6561));
      expect(boardText(positionFromBoardText(rows, 'black'))).toEqual(rows);
    }
  });

  it('put a1 on bit 0 and h8 on bit 31 of the high half', () => {
    const pos = positionFromBoardText(['B.......', ...Array(6).fill('........'), '.......W'], 'black');
    expect(pos).toEqual({ blackLo: 1, blackHi: 0, whiteLo: 0, whiteHi: 1 << 31, toMove: 'black' });
  });

  it.each([
    { name: 'seven rows', rows: SAMPLE.slice(1) },
    { name: 'a short row', rows: ['B......', ...SAMPLE.slice(1)] },
    { name: 'a lower-case disc', rows: ['b.......', ...SAMPLE.slice(1)] },
    { name: 'a stray character', rows: ['X.......', ...SAMPLE.slice(1)] },
  ])('reject board text with $name', ({ rows }) => {
    const attempt = () => positionFromBoardText(rows, 'black');
    expect(attempt).toThrow(RulesError);
    expect(attempt).toThrow(expect.objectContaining({ code: 'reversi/malformed-board' }));
  });

  it('reject bitboards with both colours on one square', () => {
    expect(() => positionFromBoards(1, 0, 1, 0, 'black')).toThrow(
      expect.objectContaining({ code: 'reversi/malformed-board' }),
    );
  });
});
