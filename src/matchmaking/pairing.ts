/**
 * Who plays whom next: pure, with an injected random source. Bots whose last matches ended by their
 * faults go last, so that a few bots that never move cannot take a round's pairings (one pairing a
 * round is theirs, so that they are not shut out for good); then bots with few games go first
 * (their ratings are the least certain); each one's opponent is drawn mostly among the nearest
 * ratings, sometimes from anywhere (the Halite arena's scheme: near games sharpen the order, far ones keep
 * separate clusters of the ladder comparable). Colours go to even out each bot's black/white count.
 */

export interface Candidate {
  readonly id: string;
  readonly rating: number;
  readonly ratedGames: number;
  /** How many of its last matches in a row ended by its fault. */
  readonly faultStreak: number;
  /** How many more matches the bot may be in at once. */
  readonly capacity: number;
  /** Black games minus white games so far. */
  readonly colorBalance: number;
  /** One of the arena's house bots. */
  readonly house?: boolean;
  /**
   * What tells who runs the bot, as far as the arena can see (where it was registered from, the host
   * its URL names): two bots that share one are likely one person's, whose games against each other
   * could feed one of them rated wins. Not paired unless `sameOperator`.
   */
  readonly operatorMarks?: readonly string[];
  /**
   * The account that owns the bot: two bots of one owner are never paired, whatever `sameOperator`
   * says (that setting relaxes the marks, which only guess at an operator; an owner is the fact).
   */
  readonly owner?: string;
}

export interface PairingOptions {
  /** At most this many pairings in one round. */
  readonly maxPairs: number;
  /**
   * The matches one pairing makes (1 by default; 2 for paired games, colours swapped): the free
   * capacity each of its two bots needs, and spends.
   */
  readonly matchesPerPair?: number;
  /** The opponent is drawn among this many nearest ratings… */
  readonly nearest: number;
  /** …except with this probability, when it is drawn among everyone eligible. */
  readonly farProbability: number;
  /**
   * Whether two house bots may be paired. Off in production: their games would fill the match
   * history and the rating list with the arena talking to itself. On for the demo, where there is
   * nobody else to play at first.
   */
  readonly houseVsHouse?: boolean;
  /**
   * Whether two bots that share an operator mark may be paired. Off in production; on for the
   * demo and tests, where every bot is registered from, and served on, one machine.
   */
  readonly sameOperator?: boolean;
}

export interface Pairing {
  readonly black: string;
  readonly white: string;
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;
}

function shareMark(a: Candidate, b: Candidate): boolean {
  return a.operatorMarks?.some((mark) => b.operatorMarks?.includes(mark)) ?? false;
}

function shareOwner(a: Candidate, b: Candidate): boolean {
  return a.owner !== undefined && a.owner === b.owner;
}

/**
 * Pairs eligible bots for one round. Never exceeds a bot's capacity (`matchesPerPair` matches a
 * pairing), never pairs a bot with itself or the same two bots twice in a round, nor two house
 * bots unless `houseVsHouse`, nor two bots that share an operator mark unless `sameOperator`, nor
 * ever two bots of one owner.
 *
 * @example
 * pairBots([{ id: 'a', rating: 1500, ratedGames: 0, faultStreak: 0, capacity: 1, colorBalance: 0 }, …], { maxPairs: 10, nearest: 3, farProbability: 0.1 }, Math.random)
 */
export function pairBots(
  candidates: readonly Candidate[],
  options: PairingOptions,
  random: () => number,
): Pairing[] {
  const perPair = options.matchesPerPair ?? 1;
  const capacity = new Map(candidates.map((c) => [c.id, c.capacity]));
  const free = (id: string) => (capacity.get(id) ?? 0) >= perPair;
  const balance = new Map(candidates.map((c) => [c.id, c.colorBalance]));
  const paired = new Set<string>();
  const key = (a: string, b: string) => (a < b ? `${a} ${b}` : `${b} ${a}`);
  // Shuffle, then a stable sort (bots at fault last, then by games): equal ones stay in random order.
  const shuffled = candidates.map((c) => ({ c, r: random() })).sort((x, y) => x.r - y.r);
  const order = shuffled
    .map((x) => x.c)
    .sort((x, y) => Number(x.faultStreak > 0) - Number(y.faultStreak > 0) || x.ratedGames - y.ratedGames);
  const pairs: Pairing[] = [];

  // One pairing a round is kept for the bots at fault, when there are any and room for two: served
  // last and never chosen by a clean bot, one that faulted once would otherwise wait for good in a
  // busy arena, with no clean match to end its streak.
  const kept = options.maxPairs >= 2 && candidates.some((c) => c.faultStreak > 0) ? 1 : 0;
  for (const bot of order) {
    const room = bot.faultStreak > 0 ? options.maxPairs : options.maxPairs - kept;
    if (pairs.length >= room) continue;
    while (free(bot.id) && pairs.length < room) {
      const others = candidates.filter(
        (other) =>
          other.id !== bot.id &&
          free(other.id) &&
          !paired.has(key(bot.id, other.id)) &&
          (options.houseVsHouse !== false || !(bot.house && other.house)) &&
          (options.sameOperator === true || !shareMark(bot, other)) &&
          !shareOwner(bot, other),
      );
      if (others.length === 0) break;
      // A clean bot plays a clean one while any is free; a bot at fault gets whoever is left.
      const clean = bot.faultStreak === 0 ? others.filter((other) => other.faultStreak === 0) : [];
      const choices = clean.length > 0 ? clean : others;
      const pool =
        random() < options.farProbability
          ? choices
          : [...choices]
              .sort(
                (x, y) =>
                  Math.abs(x.rating - bot.rating) - Math.abs(y.rating - bot.rating) || (x.id < y.id ? -1 : 1),
              )
              .slice(0, Math.max(1, options.nearest));
      const opponent = pick(pool, random);
      const botBalance = balance.get(bot.id) ?? 0;
      const opponentBalance = balance.get(opponent.id) ?? 0;
      const botIsBlack = botBalance < opponentBalance || (botBalance === opponentBalance && random() < 0.5);
      const [black, white] = botIsBlack ? [bot.id, opponent.id] : [opponent.id, bot.id];
      pairs.push({ black, white });
      paired.add(key(bot.id, opponent.id));
      balance.set(black, (balance.get(black) ?? 0) + 1);
      balance.set(white, (balance.get(white) ?? 0) - 1);
      capacity.set(bot.id, (capacity.get(bot.id) ?? 0) - perPair);
      capacity.set(opponent.id, (capacity.get(opponent.id) ?? 0) - perPair);
    }
  }
  return pairs;
}
