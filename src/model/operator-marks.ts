import type { BotRecord } from './records.ts';

/**
 * What tells who runs `bot` (see `Candidate.operatorMarks` in matchmaking/pairing.ts): where it was registered from, and the
 * host its URL names (ports aside: one machine's bots are one operator's).
 */
export function operatorMarks(bot: BotRecord): string[] {
  const marks: string[] = [];
  if (bot.registeredFrom !== null) marks.push(`from ${bot.registeredFrom}`);
  // Every stored URL parses; one that did not must not stop a matchmaking round.
  if (bot.url !== null && URL.canParse(bot.url)) marks.push(`host ${new URL(bot.url).hostname}`);
  return marks;
}
