import type { Random } from '../house/random.ts';
import { houseChooser } from '../house/roster.ts';
import type { Player } from './player.ts';

/**
 * A house bot, played by the worker in-process: no HTTP, no waiting. Its search is bounded (a few
 * milliseconds a move at most), so it does not hold up the other matches on the worker's thread.
 * An engine this version does not know plays as `greedy` rather than failing the match.
 */
export function housePlayer(engine: string, random: Random, now: () => number): Player {
  const choose = houseChooser(engine, random) ?? houseChooser('greedy', random)!;
  return {
    move: async ({ state }) => {
      const started = now();
      const action = choose(state);
      return { ok: true, action, latencyMs: Math.round(now() - started) };
    },
  };
}
