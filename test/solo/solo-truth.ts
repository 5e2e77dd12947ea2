import type { BotState, components } from '../../src/contract/index.ts';
import {
  isSoloOver,
  playSolo,
  type SoloScoring,
  type SoloState,
  soloScore,
  soloStart,
} from '../../src/reversi/solo.ts';
import { shuffledSoloLayout } from '../../src/reversi/solo-layouts.ts';
import { squareName } from '../../src/reversi/squares.ts';
import { soloLayoutBytes } from '../../src/support/solo-layout-key.ts';

export type SoloMatch = components['schemas']['Match'];

/**
 * The truth of a solo game, worked out apart from the arena's seam: the engine played from the
 * layout the test's SOLO_SECRET lays, move by move as the record has them.
 */
export function soloTruth(layout: number, moves: readonly { square: string; colour?: string }[]): SoloState {
  let state = soloStart(shuffledSoloLayout(soloLayoutBytes(process.env.SOLO_SECRET!)(layout)));
  for (const move of moves) {
    const played = playSolo(state, { square: move.square, colour: move.colour as 'black' | 'white' });
    if (!played.ok) throw new Error(`${move.square} ${move.colour} does not replay: ${played.message}`);
    state = played.state;
  }
  return state;
}

/** A finished solo match replayed: its score under its scoring, and whether the game is over. */
export function replaySolo(match: SoloMatch): { score: number; over: boolean } {
  const state = soloTruth(match.rules.layout!, match.moves);
  return { score: soloScore(state, match.rules.scoring as SoloScoring), over: isSoloOver(state) };
}

/**
 * Every way `states` (sent to the player of `match`) show more than the player may know: a
 * face-down token shown as anything but its square and `hidden: true`, a turned one shown wrong,
 * a board letter that is not what the player sees. Empty when nothing leaked.
 */
export function hiddenTokenLeaks(match: SoloMatch, states: readonly BotState[]): string[] {
  const leaks: string[] = [];
  for (const state of states) {
    const truth = soloTruth(match.rules.layout!, match.moves.slice(0, state.ply - 1));
    const shown = new Map((state.tokens ?? []).map((token) => [token.square, token]));
    truth.cells.forEach((cell, index) => {
      const square = squareName(index);
      const letter = state.board[index >> 3]![index & 7];
      if (cell.kind !== 'token') {
        if (shown.has(square)) leaks.push(`ply ${state.ply}: ${square} holds no token but one is shown`);
        return;
      }
      const token = shown.get(square);
      const expected = cell.turned
        ? { square, hidden: false, colour: cell.token.colour, value: cell.token.value }
        : { square, hidden: true };
      if (JSON.stringify(token) !== JSON.stringify(expected)) {
        leaks.push(`ply ${state.ply}: ${square} shown as ${JSON.stringify(token)}`);
      }
      const seenLetter = cell.turned ? { black: 'b', white: 'w', blank: 'o' }[cell.token.colour] : '?';
      if (letter !== seenLetter) leaks.push(`ply ${state.ply}: ${square} drawn as ${letter}`);
    });
  }
  return leaks;
}
