import { describe, expect, it } from 'vitest';
import { seededRandom } from '../support/random.ts';
import {
  isSoloOver,
  legalSoloMoves,
  playSolo,
  type SoloCell,
  type SoloState,
  seenTokens,
  soloBoardRows,
  soloScore,
  soloStart,
} from './solo.ts';
import { SOLO_TOKEN_SQUARES, SOLO_TOKENS, soloLayout, type Token } from './solo-layouts.ts';
import { squareIndex, squareName } from './squares.ts';

/**
 * A position from rows (rank 1 first): `B`/`W` discs, `.` empty, `?` a hidden token, `b`/`w`/`o` a
 * turned black, white or blank token. Tokens' values come from `values` by square (5 otherwise).
 */
function position(rows: string[], values: Record<string, number> = {}): SoloState {
  const cells: SoloCell[] = rows.flatMap((row, rank) =>
    [...row].map((letter, file): SoloCell => {
      const square = squareName(rank * 8 + file);
      const value = values[square] ?? 5;
      if (letter === 'B') return { kind: 'disc', colour: 'black' };
      if (letter === 'W') return { kind: 'disc', colour: 'white' };
      if (letter === '?') return { kind: 'token', token: { colour: 'white', value }, turned: false };
      if (letter === 'b') return { kind: 'token', token: { colour: 'black', value }, turned: true };
      if (letter === 'w') return { kind: 'token', token: { colour: 'white', value }, turned: true };
      if (letter === 'o') return { kind: 'token', token: { colour: 'blank', value: 0 }, turned: true };
      return { kind: 'empty' };
    }),
  );
  return { cells, captured: [] };
}

const EMPTY_ROWS = [
  '........',
  '........',
  '........',
  '........',
  '........',
  '........',
  '........',
  '........',
];
const withRows = (changes: Record<number, string>) => EMPTY_ROWS.map((row, i) => changes[i] ?? row);

describe('the solo game, rule by rule', () => {
  it('starts from the four centre discs and 24 face-down tokens', () => {
    const start = soloStart();
    expect(soloBoardRows(start)).toEqual([
      '?.?..?.?',
      '.?.??.?.',
      '..?..?..',
      '.?.WB.?.',
      '.?.BW.?.',
      '..?..?..',
      '.?.??.?.',
      '?.?..?.?',
    ]);
    expect(seenTokens(start).every((token) => token.hidden)).toBe(true);
    expect(start.captured).toEqual([]);
  });

  it('places a disc on an empty square only', () => {
    const start = soloStart();
    expect(playSolo(start, { square: 'd4', colour: 'black' })).toMatchObject({
      ok: false,
      message: /holds a disc/,
    });
    expect(playSolo(start, { square: 'a1', colour: 'black' })).toMatchObject({
      ok: false,
      message: /holds a token/,
    });
    expect(playSolo(start, { square: 'z9', colour: 'black' })).toMatchObject({
      ok: false,
      message: /not a square/,
    });
  });

  it("flips the other colour's discs by the ordinary rule, in the colour the player picks", () => {
    const state = position(withRows({ 3: '..WBB...' }));
    const played = playSolo(state, { square: 'f4', colour: 'white' });
    expect(played.ok && played.effect.flips).toEqual(['d4', 'e4']);
    expect(played.ok && soloBoardRows(played.state)[3]).toBe('..WWWW..');
    // The same square in black flips nothing there: it is not a placement.
    expect(playSolo(state, { square: 'f4', colour: 'black' }).ok).toBe(false);
  });

  it('lets a token break a line: discs beyond it are not trapped', () => {
    const state = position(withRows({ 3: '.W?B....' }));
    expect(playSolo(state, { square: 'a4', colour: 'black' }).ok).toBe(false);
  });

  it('turns the tokens a placed or flipped disc touches by a side, never diagonally', () => {
    const state = position(withRows({ 2: '...?....', 3: '..?WB...', 4: '.....?..' }));
    // c4 holds a token: no disc goes there.
    expect(playSolo(state, { square: 'c4', colour: 'black' }).ok).toBe(false);
    const flipping = position(withRows({ 2: '...?....', 3: '...WB...', 4: '..?..?..' }));
    const result = playSolo(flipping, { square: 'c4', colour: 'black' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    // c4 touches c5 (below) and the flipped d4 touches d3 (above); e5 is only diagonal to d4.
    expect(result.effect.turned).toEqual(['d3', 'c5']);
    expect(
      seenTokens(result.state)
        .filter((token) => !token.hidden)
        .map((t) => t.square),
    ).toEqual(['d3', 'c5']);
  });

  it('captures a turned token of the other colour trapped between two discs touching it, one of them moved', () => {
    // b5 is a turned white token worth 7 beside a black disc on a5; black on c5 traps it.
    const state = position(withRows({ 4: 'Bw......' }), { b5: 7 });
    const played = playSolo(state, { square: 'c5', colour: 'black' });
    expect(played.ok).toBe(true);
    if (!played.ok) return;
    expect(played.effect.captures).toEqual([{ square: 'b5', token: { colour: 'white', value: 7 } }]);
    expect(soloBoardRows(played.state)[4]).toBe('B.B.....');
    expect(soloScore(played.state, 'tokens')).toBe(1);
    expect(soloScore(played.state, 'points')).toBe(7);
  });

  it('does not capture a token of the trapping colour, nor a hidden one, nor one trapped diagonally', () => {
    const black = position(withRows({ 4: 'Bb......' }));
    expect(playSolo(black, { square: 'c5', colour: 'black' }).ok).toBe(false);
    const hidden = position(withRows({ 4: 'B?......' }));
    const turnedOnly = playSolo(hidden, { square: 'c5', colour: 'black' });
    // Turning the hidden token alone is no placement, though this move would turn it.
    expect(turnedOnly.ok).toBe(false);
    const diagonal = position(withRows({ 3: 'B.......', 4: '.w......' }));
    expect(playSolo(diagonal, { square: 'c6', colour: 'black' }).ok).toBe(false);
  });

  it('captures a blank token with either colour', () => {
    for (const colour of ['black', 'white'] as const) {
      const letter = colour === 'black' ? 'B' : 'W';
      const state = position(withRows({ 4: `${letter}o......` }));
      const played = playSolo(state, { square: 'c5', colour });
      expect(played.ok && played.effect.captures.map((c) => c.token)).toEqual([
        { colour: 'blank', value: 0 },
      ]);
    }
  });

  it('does not capture a token the same move turns: a later move does', () => {
    // c5 hidden (white 4) with a black disc below it on c6; black on c4 flips d4 and turns c5.
    const state = position(withRows({ 3: '...WB...', 4: '..?.....', 5: '..B.....' }), { c5: 4 });
    const first = playSolo(state, { square: 'c4', colour: 'black' });
    expect(first.ok && first.effect.turned).toEqual(['c5']);
    expect(first.ok && first.effect.captures).toEqual([]);
    if (!first.ok) return;
    // Turned before, a token is taken by the next move that traps it (here between b5 and the placed d5).
    const trap = position(withRows({ 3: '..B.....', 4: '.Bw.....', 5: '..B.....' }), { c5: 4 });
    const taken = playSolo(trap, { square: 'd5', colour: 'black' });
    expect(taken.ok && taken.effect.captures).toEqual([
      { square: 'c5', token: { colour: 'white', value: 4 } },
    ]);
  });

  it('does not capture a token whose trapping discs were both there before the move', () => {
    const state = position(withRows({ 3: '...WB...', 4: 'BwB.....' }));
    const played = playSolo(state, { square: 'c4', colour: 'black' });
    expect(played.ok && played.effect.captures).toEqual([]);
  });

  it('ends when every token is captured, or when no placement is left', () => {
    const last = position(withRows({ 3: '...WB...', 4: 'Bw......' }));
    expect(isSoloOver(last)).toBe(false);
    const played = playSolo(last, { square: 'c5', colour: 'black' });
    expect(played.ok && isSoloOver(played.state)).toBe(true);
    const stuck = position(withRows({ 0: '?.......' }));
    expect(legalSoloMoves(stuck)).toEqual([]);
    expect(isSoloOver(stuck)).toBe(true);
  });
});

describe('layouts', () => {
  it('puts the 24 tokens on the same squares, symmetric about both middle lines', () => {
    const mirror = (square: string, flipFile: boolean) => {
      const i = squareIndex(square);
      const file = flipFile ? 7 - (i & 7) : i & 7;
      const rank = flipFile ? i >> 3 : 7 - (i >> 3);
      return squareName(rank * 8 + file);
    };
    const squares = new Set(SOLO_TOKEN_SQUARES);
    expect(squares.size).toBe(24);
    for (const square of squares) {
      expect(squares.has(mirror(square, true))).toBe(true);
      expect(squares.has(mirror(square, false))).toBe(true);
    }
  });

  it('gives the same tokens in the same places for a number, shuffled differently for another', () => {
    const sorted = (tokens: Iterable<Token>) => [...tokens].map((t) => `${t.colour}${t.value}`).sort();
    const seven = soloLayout(7);
    expect(soloLayout(7)).toEqual(seven);
    expect(sorted(seven.values())).toEqual(sorted(SOLO_TOKENS));
    expect([...seven.keys()].sort()).toEqual([...soloLayout(0).keys()].sort());
    expect([...soloLayout(8).values()]).not.toEqual([...seven.values()]);
    expect(() => soloLayout(-1)).toThrow(RangeError);
  });
});

describe('random play (properties)', () => {
  it('conserves every token, always ends, never lowers the score, and hides what is not turned', () => {
    for (let game = 0; game < 60; game++) {
      const next = seededRandom(game + 1);
      let state = soloStart(game);
      const everTurned = new Set<string>();
      let plies = 0;
      let score = 0;
      while (!isSoloOver(state)) {
        const moves = legalSoloMoves(state);
        const played = playSolo(state, moves[Math.floor(next() * moves.length)]!);
        if (!played.ok) throw new Error(played.message);
        state = played.state;
        plies++;
        expect(plies).toBeLessThanOrEqual(60 + 24);
        const onBoard = state.cells.filter((cell) => cell.kind === 'token').length;
        expect(onBoard + state.captured.length).toBe(24);
        const now = soloScore(state, 'points');
        expect(now).toBeGreaterThanOrEqual(score);
        score = now;
        for (const token of seenTokens(state)) {
          // What the player sees of a token is its square alone until a move turns it; turned, it stays turned.
          if (token.hidden) {
            expect(Object.keys(token).sort()).toEqual(['hidden', 'square']);
            expect(everTurned.has(token.square)).toBe(false);
          } else everTurned.add(token.square);
        }
      }
      expect(soloScore(state, 'tokens')).toBe(state.captured.length);
    }
  });
});
