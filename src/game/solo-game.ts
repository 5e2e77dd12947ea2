/**
 * The solo game of the French rule sheet behind the game seam (rules in src/reversi/solo.ts, the
 * arena's decisions in docs/solo.md). A one-player game: its one player sits on the `black` side
 * of the match record (the arena seats it on both), `toMove` is always `black`, and the colour of
 * the disc placed is the action's `colour`, which the arena records with the move.
 */

import {
  isSoloOver,
  legalSoloMoves,
  playSolo,
  type SoloScoring,
  type SoloState,
  seenTokens,
  soloBoardRows,
  soloScore,
  soloStart,
} from '../reversi/solo.ts';
import { MAX_SOLO_LAYOUT, shuffledSoloLayout } from '../reversi/solo-layouts.ts';
import type { Game, Side } from './game.ts';

export interface SoloOptions {
  /** Which of the arena's layouts: 0 to 2³¹−1, each a fixed shuffle of the 24 tokens. */
  readonly layout: number;
  readonly scoring: SoloScoring;
}

export const SOLO_GAME_ID = 'solo';
export const SOLO_SCORINGS: readonly SoloScoring[] = ['tokens', 'points'];
/** The side the solo player sits on: the one `toMove` always names. */
export const SOLO_SIDE: Side = 'black';

/**
 * The bytes a layout's shuffle reads, from a keyed hash of its number (src/support/solo-layouts.ts):
 * given to the game once per process, so the game stays free of keys and hashing.
 */
export type SoloLayoutBytes = (layout: number) => Uint8Array;

let layoutBytes: SoloLayoutBytes | null = null;

/**
 * Gives the solo game the source of its layouts' shuffles: once per process, at start. Giving it
 * another later throws: the games in play would change their tokens under their players.
 */
export function useSoloLayouts(bytes: SoloLayoutBytes): void {
  if (layoutBytes !== null && layoutBytes !== bytes) {
    throw new Error('the solo game already has its layouts: one process, one layout key');
  }
  layoutBytes = bytes;
}

/** A rules error of the solo game: an option outside the documented ones. */
export class SoloRulesError extends Error {
  override readonly name = 'SoloRulesError';
  readonly code = 'solo/invalid-rules';
}

/** The seam's rules record, read loosely: a solo match's rules carry `layout` and a solo `scoring`. */
interface SoloRules {
  readonly layout?: unknown;
  readonly scoring?: unknown;
}

/**
 * The solo game. `legalActions` lists each square that takes a disc of some colour (a bot reads
 * the colours from `legalActions` in the state `shownState` adds); `apply` needs the colour.
 *
 * @example
 * const options = solo.options({ layout: 7, scoring: 'points' });
 * const start = solo.initialState(options);
 * solo.apply(start, { action: 'c4', colour: 'white' }, options); // { ok: true, … }
 */
export const solo: Game<SoloState, SoloOptions> & { readonly id: typeof SOLO_GAME_ID } = {
  id: SOLO_GAME_ID,
  defaultOptions: Object.freeze({ layout: 0, scoring: 'tokens' }),
  options(rules: SoloRules = {}) {
    const layout = rules.layout ?? 0;
    if (typeof layout !== 'number' || !Number.isInteger(layout) || layout < 0 || layout > MAX_SOLO_LAYOUT) {
      throw new SoloRulesError(`a solo layout is a whole number from 0 to ${MAX_SOLO_LAYOUT}`);
    }
    const scoring = rules.scoring ?? 'tokens';
    if (!SOLO_SCORINGS.includes(scoring as SoloScoring)) {
      throw new SoloRulesError(`the solo game scores ${SOLO_SCORINGS.join(' or ')}, not ${String(scoring)}`);
    }
    return Object.freeze({ layout, scoring: scoring as SoloScoring });
  },
  initialState({ layout }) {
    if (layoutBytes === null) throw new Error('the solo game has no layouts yet (useSoloLayouts)');
    return soloStart(shuffledSoloLayout(layoutBytes(layout)));
  },
  openingActions: () => [],
  toMove: () => SOLO_SIDE,
  legalActions: (state) => [...new Set(legalSoloMoves(state).map((move) => move.square))],
  mustPass: () => false,
  pass() {
    throw new Error('the solo game has no passes: it ends when no placement is left');
  },
  apply(state, { action, colour }) {
    if (colour !== 'black' && colour !== 'white') {
      return { ok: false, message: 'a solo action names the colour of its disc: black or white' };
    }
    const played = playSolo(state, { square: action, colour });
    if (!played.ok) return played;
    // What the wire reports as a move's flips: the discs it turned over, then the tokens it took.
    return {
      ok: true,
      state: played.state,
      flips: [...played.effect.flips, ...played.effect.captures.map((capture) => capture.square)],
    };
  },
  recordsDirection: () => false,
  choosesColour: true,
  isOver: (state) => isSoloOver(state),
  outcome(state, { scoring }) {
    return { winner: null, counts: { black: soloScore(state, scoring), white: 0 } };
  },
  counts: (state, { scoring }) => ({ black: soloScore(state, scoring), white: 0 }),
  boardRows: (state) => soloBoardRows(state),
  shownState(state, { scoring }) {
    return {
      tokens: seenTokens(state),
      captured: state.captured.map((token) => ({ ...token })),
      score: soloScore(state, scoring),
      legalActions: legalSoloMoves(state).map(({ square, colour }) => ({ action: square, colour })),
    };
  },
};
