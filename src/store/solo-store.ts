/** A bot's entry in a week of the solo league: when it entered, and its games, one per layout in order. */
export interface SoloLeagueEntry {
  readonly botId: string;
  readonly enteredAt: number;
  readonly matchIds: readonly string[];
}

/** What an ended league game counted: its score and the time its player took (kept once it ended). */
export interface SoloLeagueTally {
  readonly score: number;
  readonly timeUsedMs: number;
}

/**
 * The solo league's weeks: who entered with which games, and the tallies of the games already
 * ended (an ended game never changes, so its tally is worked out from its record once).
 */
export interface SoloLeagueStore {
  /** Stores `entry` for `week` unless the bot entered it already (then false, nothing written). */
  enter(week: string, entry: SoloLeagueEntry): Promise<boolean>;
  /** Takes back an entry whose games could not be stored. */
  withdraw(week: string, botId: string): Promise<void>;
  entries(week: string): Promise<SoloLeagueEntry[]>;
  tallies(week: string): Promise<Map<string, SoloLeagueTally>>;
  /** Keeps the tallies of games that have ended (by match id). */
  keepTallies(week: string, tallies: ReadonlyMap<string, SoloLeagueTally>): Promise<void>;
}
