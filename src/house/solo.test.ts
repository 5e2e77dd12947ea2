import { describe, expect, it } from 'vitest';
import {
  isSoloOver,
  legalSoloMoves,
  playSolo,
  type SoloCell,
  type SoloState,
  soloScore,
  soloStart,
} from '../reversi/solo.ts';
import { seededRandom } from '../support/random.ts';
import { chooseSoloGreedy, chooseSoloRandom } from './solo.ts';

/** Rows as in src/reversi/solo.test.ts: `B`/`W` discs, `.` empty, `w` a turned white token worth `value`. */
function position(rows: string[], value = 5): SoloState {
  const cells = rows.flatMap((row) =>
    [...row].map((letter): SoloCell => {
      if (letter === 'B') return { kind: 'disc', colour: 'black' };
      if (letter === 'W') return { kind: 'disc', colour: 'white' };
      if (letter === 'w') return { kind: 'token', token: { colour: 'white', value }, turned: true };
      return { kind: 'empty' };
    }),
  );
  return { cells, captured: [] };
}
const rows = (changes: Record<number, string>) =>
  Array.from({ length: 8 }, (_, i) => changes[i] ?? '........');

describe('the house bots in the solo game', () => {
  it('greedy takes a capture over a bigger flip', () => {
    // Black on c5 captures b5; white on h4 would flip two discs and capture nothing.
    const state = position(rows({ 3: '....WBB.', 4: 'Bw......' }));
    expect(chooseSoloGreedy(state)).toEqual({ square: 'c5', colour: 'black' });
  });

  it('random plays a legal placement, the same one for the same draws', () => {
    const start = soloStart(3);
    const move = chooseSoloRandom(start, seededRandom(1));
    expect(legalSoloMoves(start)).toContainEqual(move);
    expect(chooseSoloRandom(start, seededRandom(1))).toEqual(move);
  });

  it('play whole games to the end, greedy capturing at least as much as random over a few layouts', () => {
    let greedyTotal = 0;
    let randomTotal = 0;
    for (let layout = 1; layout <= 8; layout++) {
      for (const chooser of ['greedy', 'random'] as const) {
        const random = seededRandom(layout);
        let state = soloStart(layout);
        while (!isSoloOver(state)) {
          const move = chooser === 'greedy' ? chooseSoloGreedy(state) : chooseSoloRandom(state, random);
          const played = playSolo(state, move!);
          if (!played.ok) throw new Error(played.message);
          state = played.state;
        }
        if (chooser === 'greedy') greedyTotal += soloScore(state, 'tokens');
        else randomTotal += soloScore(state, 'tokens');
      }
    }
    expect(greedyTotal).toBeGreaterThanOrEqual(randomTotal);
    expect(chooseSoloGreedy(position(rows({ 0: '........' })))).toBeNull();
  });
});
