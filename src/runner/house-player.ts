import { SOLO_GAME_ID } from '../game/index.ts';
import type { Random } from '../house/random.ts';
import { houseChooser } from '../house/roster.ts';
import { chooseSoloAction } from '../house/solo.ts';
import type { Turn } from '../house/turn.ts';
import type { Player } from './player.ts';

/**
 * A house bot, played by the worker in-process: no HTTP, no waiting. Its search is bounded (a few
 * milliseconds a move at most), so it does not hold up the other matches on the worker's thread.
 * An engine this version does not know plays as `greedy` rather than failing the match.
 */
export function housePlayer(engine: string, random: Random, now: () => number): Player {
  const choose = houseChooser(engine, random) ?? houseChooser('greedy', random)!;
  return {
    move: async (request) => {
      const started = now();
      const state = request.state();
      // A Reversi state is a house chooser's `Turn`; the solo game has choosers of its own.
      const action =
        state.game === SOLO_GAME_ID ? chooseSoloAction(engine, state, random) : choose(state as Turn);
      return { ok: true, action, latencyMs: Math.round(now() - started) };
    },
  };
}
