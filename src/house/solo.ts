import { z } from 'zod';
import {
  legalSoloMoves,
  type SoloCell,
  type SoloMove,
  type SoloScoring,
  type SoloState,
  soloEffect,
} from '../reversi/solo.ts';
import type { Token } from '../reversi/solo-layouts.ts';
import { squareIndex } from '../reversi/squares.ts';
import type { Random } from './random.ts';
import type { Action } from './turn.ts';

/**
 * The house bots' play in the solo game (docs/solo.md), so that a solo league is never empty: a
 * random placement, and a greedy one. Pure, on the engine's state; null when no placement is left.
 */

/** Any legal placement, each as likely, by the injected `random` (in [0, 1)). */
export function chooseSoloRandom(state: SoloState, random: () => number): SoloMove | null {
  const moves = legalSoloMoves(state);
  if (moves.length === 0) return null;
  return moves[Math.min(moves.length - 1, Math.floor(random() * moves.length))]!;
}

/**
 * The placement that scores most now (tokens, or their values under `points`), then turns the most
 * tokens (what it learns), then flips the most discs; ties go to the first in a1..h8 order, black
 * before white, so the answer is deterministic.
 */
export function chooseSoloGreedy(state: SoloState, scoring: SoloScoring = 'tokens'): SoloMove | null {
  let best: { move: SoloMove; key: readonly number[] } | null = null;
  for (const move of legalSoloMoves(state)) {
    const effect = soloEffect(state, move);
    if (typeof effect === 'string') continue;
    const scored =
      scoring === 'tokens'
        ? effect.captures.length
        : effect.captures.reduce((sum, { token }) => sum + token.value, 0);
    const key = [scored, effect.turned.length, effect.flips.length];
    if (best === null || outranks(key, best.key)) best = { move, key };
  }
  return best?.move ?? null;
}

/** Whether `a` comes before `b` compared element by element, the larger first. */
function outranks(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! > b[i]!;
  }
  return false;
}

const tokenColour = z.enum(['black', 'white', 'blank']);

/** The part of a solo `BotState` the house bots read: the board, the turned tokens' values, the captures. */
export const soloTurnSchema = z.looseObject({
  board: z.array(z.string().regex(/^[BW.?bwo]{8}$/, 'must be 8 of B, W, ., ?, b, w, o')).length(8),
  tokens: z.array(
    z.looseObject({ square: z.string(), hidden: z.boolean(), value: z.number().int().optional() }),
  ),
  captured: z.array(z.looseObject({ colour: tokenColour, value: z.number().int() })),
  rules: z.looseObject({ scoring: z.enum(['tokens', 'points']) }),
});
export type SoloTurn = z.infer<typeof soloTurnSchema>;

/** A face-down token as a player knows it: nothing. Placements never depend on what it hides. */
const UNKNOWN: Token = Object.freeze({ colour: 'blank', value: 0 });
const TURNED = { b: 'black', w: 'white', o: 'blank' } as const;

/**
 * The engine's state as far as the player can see it: a face-down token stands for an unknown one
 * (what a placement does depends only on where tokens lie and on the turned ones' colours).
 */
export function soloStateSeen(turn: SoloTurn): SoloState {
  const values = new Map(turn.tokens.map((token) => [squareIndex(token.square), token.value ?? 0]));
  const cells: SoloCell[] = turn.board.flatMap((row, rank) =>
    [...row].map((letter, file): SoloCell => {
      if (letter === 'B' || letter === 'W')
        return { kind: 'disc', colour: letter === 'B' ? 'black' : 'white' };
      if (letter === '?') return { kind: 'token', token: UNKNOWN, turned: false };
      const colour = TURNED[letter as keyof typeof TURNED];
      if (colour === undefined) return { kind: 'empty' };
      return { kind: 'token', token: { colour, value: values.get(rank * 8 + file) ?? 0 }, turned: true };
    }),
  );
  return { cells, captured: turn.captured.map(({ colour, value }) => ({ colour, value })) };
}

/**
 * A house bot's play in the solo game, by its engine: `random` at random, every other engine
 * greedily. Answers the placement with its colour; throws when none is left (the arena never asks).
 */
export function chooseSoloAction(engine: string, state: unknown, random: Random): Action {
  const turn = soloTurnSchema.parse(state);
  const seen = soloStateSeen(turn);
  const move =
    engine === 'random' ? chooseSoloRandom(seen, random) : chooseSoloGreedy(seen, turn.rules.scoring);
  if (move === null) throw new Error('no placement is left on this board');
  return { action: move.square, colour: move.colour };
}
