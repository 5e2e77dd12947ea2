import type { BotRecord } from '../store/records.ts';

/**
 * What tells who runs `bot` (see `Candidate.operatorMarks` in matchmaking/pairing.ts): where it was registered from, and the
 * host its URL names (ports aside: one machine's bots are one operator's).
 */
export function operatorMarks(bot: BotRecord): string[] {
  const marks: string[] = [];
  if (bot.registeredFrom !== null) marks.push(`from ${bot.registeredFrom}`);
  if (bot.url !== null) marks.push(`host ${new URL(bot.url).hostname}`);
  return marks;
}
