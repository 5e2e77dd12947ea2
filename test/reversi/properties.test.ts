import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boardText,
  type Direction,
  initialPosition,
  isGameOver,
  legalMoves,
  mustPass,
  outcome,
  type Position,
  play,
  type RulesOptions,
  rulesOptions,
  trappingDirections,
} from '../../src/reversi/index.ts';
import {
  type RefState,
  refGameOver,
  refLegalMoves,
  refLines,
  refMustPass,
  refName,
  refPass,
  refPlay,
  refRows,
  refStart,
} from './reference.ts';

/**
 * Plays one game on the engine and the reference side by side, each ply chosen by the next number in
 * `choices`, and fails at the first ply where they disagree on anything observable. Each ply's
 * observations are compared whole, and handed to `expect` only when they differ: one `expect` per
 * fact and ply cost most of this file's time (4 × 150 games of 60 plies).
 */
function playAlongside(rules: RulesOptions, choices: readonly number[]): void {
  let pos: Position = initialPosition(rules);
  let ref: RefState = refStart(rules.firstPlayer);
  for (let ply = 0; ; ply++) {
    const refMoves = refLegalMoves(ref);
    agree(
      ply,
      {
        board: boardText(pos),
        toMove: pos.toMove,
        legalMoves: legalMoves(pos),
        gameOver: isGameOver(pos),
        mustPass: mustPass(pos),
      },
      {
        board: refRows(ref),
        toMove: ref.toMove,
        legalMoves: refMoves.map(refName),
        gameOver: refGameOver(ref),
        mustPass: refMustPass(ref),
      },
    );
    if (refGameOver(ref)) {
      expect(play(pos, { square: 'pass' }, rules)).toMatchObject({ ok: false });
      return;
    }
    const choice = choices[ply % choices.length]!;
    if (refMoves.length === 0) {
      const result = play(pos, { square: 'pass' }, rules);
      if (!result.ok) throw result.error;
      pos = result.position;
      ref = refPass(ref);
      continue;
    }
    const index = refMoves[choice % refMoves.length]!;
    const lines = [...refLines(ref.cells, ref.toMove, index).keys()];
    const direction =
      rules.captureRule === 'single-direction' ? lines[(choice >> 6) % lines.length] : undefined;
    const expected = refPlay(ref, index, direction);
    const trapping = trappingDirections(pos, refName(index));
    const result = play(
      pos,
      { square: refName(index), direction: direction as Direction | undefined },
      rules,
    );
    if (!result.ok) throw result.error;
    agree(
      ply,
      { trappingDirections: trapping, flips: result.flips },
      { trappingDirections: lines, flips: expected.flips.map(refName) },
    );
    pos = result.position;
    ref = expected.state;
  }
}

/** Fails, with both sides shown, when the engine's observations at `ply` differ from the reference's. */
function agree(ply: number, engine: object, reference: object): void {
  if (!isDeepStrictEqual(engine, reference)) expect({ ply, ...engine }).toEqual({ ply, ...reference });
}

const VARIANTS = [
  rulesOptions(),
  rulesOptions({ firstPlayer: 'black' }),
  rulesOptions({ captureRule: 'single-direction' }),
  rulesOptions({ captureRule: 'single-direction', firstPlayer: 'black' }),
];

describe('random games', () => {
  describe.each(VARIANTS)('under firstPlayer $firstPlayer, captureRule $captureRule', (rules) => {
    it('agree with the reference implementation at every ply', () => {
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 70 }), (choices) => {
          playAlongside(rules, choices);
        }),
        { numRuns: 150 },
      );
    });
  });

  it('end with scores that add up to 64 under empties-to-winner', () => {
    const rules = rulesOptions({ scoring: 'empties-to-winner' });
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 70 }), (choices) => {
        let pos = initialPosition(rules);
        for (let ply = 0; !isGameOver(pos); ply++) {
          const moves = legalMoves(pos);
          const square = moves.length === 0 ? 'pass' : moves[choices[ply % choices.length]! % moves.length]!;
          const result = play(pos, { square }, rules);
          if (!result.ok) throw result.error;
          pos = result.position;
        }
        const { discs, winner } = outcome(pos, rules);
        expect(discs.black + discs.white).toBe(64);
        expect(winner === null ? discs.black === 32 : discs[winner] > 32).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
