import type { AnyGame } from '../game/index.ts';
import type { LiveTurn } from './live-events.ts';
import type { Color } from './records.ts';

/** What `liveTurn` reads: the position a turn starts from, the clocks, and the time control. */
export interface TurnStart {
  readonly game: AnyGame;
  /** The game's position when the turn starts. */
  readonly position: unknown;
  /** The ply to play. */
  readonly ply: number;
  /** How many plies the arena plays itself at the start (the opening's). */
  readonly openingPlies: number;
  readonly timeLimitMs: number;
  readonly banks: Readonly<Record<Color, number>>;
  readonly lastLatency: Readonly<Record<Color, number | null>>;
  /** The clock's time when the turn starts (epoch ms). */
  readonly now: number;
}

/**
 * The turn that starts now, as spectators see it: whose it is and when its side runs out of time
 * (the per-move limit plus what is left of its overage bank, from `now`). No deadline when no bot
 * is asked: the game is over, or the arena plays the ply itself (an opening ply, a pass). Pure.
 *
 * The runner fixes the deadline here, once, and hands the same one to a pull bot's turn, so every
 * view of the turn names the same instant. A push bot's time is counted from the moment it is
 * asked, right after: it never has less than this deadline says.
 *
 * @example
 * liveTurn({ game, position, ply: 1, openingPlies: 0, timeLimitMs: 1000, banks, lastLatency, now: 0 });
 * // { ply: 1, toMove: 'white', deadline: 6000, banks, lastLatency } with 5000 ms banks
 */
export function liveTurn(start: TurnStart): LiveTurn {
  const { game, position, ply, banks, lastLatency } = start;
  const clocks = {
    banks: { black: Math.max(0, banks.black), white: Math.max(0, banks.white) },
    lastLatency: { ...lastLatency },
  };
  if (game.isOver(position)) return { ply, toMove: null, deadline: null, ...clocks };
  const toMove = game.toMove(position);
  const arenaPlays = ply <= start.openingPlies || game.mustPass(position);
  const deadline = arenaPlays ? null : start.now + start.timeLimitMs + clocks.banks[toMove];
  return { ply, toMove, deadline, ...clocks };
}
