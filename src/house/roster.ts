import { chooseAlphaBeta } from './alphabeta.ts';
import { chooseGreedy } from './greedy.ts';
import type { Chooser } from './play.ts';
import { chooseRandom, type Random } from './random.ts';

/**
 * The arena's house bots: sparring partners every new bot can play at once, as Battlesnake has.
 * Their ids are fixed (the earliest possible ids, before any ULID), so every process and every
 * restart registers the same four bots, once.
 */
export interface HouseBot {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** Which chooser plays it: `random`, `greedy` or `alphabeta:<depth>`. Stored with the bot. */
  readonly engine: string;
}

/** Names starting with this are the house bots' own; nobody else may register or take one. */
export const HOUSE_NAME_PREFIX = 'house-';

export const HOUSE_BOTS: readonly HouseBot[] = [
  {
    id: 'bot_00000000000000000000000001',
    name: 'house-random',
    description: 'House bot: plays a legal move at random. The easiest opponent in the arena.',
    engine: 'random',
  },
  {
    id: 'bot_00000000000000000000000002',
    name: 'house-greedy',
    description: 'House bot: plays the move that flips the most discs now.',
    engine: 'greedy',
  },
  {
    id: 'bot_00000000000000000000000003',
    name: 'house-alphabeta-1',
    description: 'House bot: alpha-beta search one ply deep on mobility, corners and discs.',
    engine: 'alphabeta:1',
  },
  {
    id: 'bot_00000000000000000000000004',
    name: 'house-alphabeta-4',
    description: 'House bot: alpha-beta search four plies deep on mobility, corners and discs.',
    engine: 'alphabeta:4',
  },
];

/** Reserved for house bots: the arena refuses it to anyone else. */
export function isHouseName(name: string): boolean {
  return name.toLowerCase().startsWith(HOUSE_NAME_PREFIX);
}

/**
 * The chooser a house bot's `engine` names, or `null` for an engine this version does not know
 * (a bot stored by a newer version). Deterministic except for `random`, which draws from `random`.
 *
 * @example
 * houseChooser('alphabeta:4', Math.random)?.(state); // { action: 'c4' }
 */
export function houseChooser(engine: string, random: Random): Chooser | null {
  if (engine === 'random') return (turn) => chooseRandom(turn, random);
  if (engine === 'greedy') return chooseGreedy;
  const depth = /^alphabeta:([1-6])$/.exec(engine)?.[1];
  if (depth !== undefined) return (turn) => chooseAlphaBeta(turn, Number(depth));
  return null;
}
