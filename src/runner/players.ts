import type { BotClient } from '../bot-client/index.ts';
import { housePlayer } from './house-player.ts';
import type { Player, PlayerFor } from './player.ts';

/**
 * The players of the arena's bots. House bots are played in-process. Push bots are called at their
 * URL. Pull bots play through the state/action API: `pull` waits for the action they post.
 */
export function playersFor(client: BotClient, pull: (botId: string) => Player): PlayerFor {
  return (bot) => {
    if (bot.house !== null) return housePlayer(bot.house, Math.random, () => performance.now());
    const url = bot.url;
    if (url === null) return pull(bot.id);
    return {
      move: (request) =>
        client.callBot({
          url,
          webhookSecret: bot.webhookSecret,
          body: request.body(),
          matchId: request.matchId,
          ply: request.ply,
          timeoutMs: request.timeoutMs,
          signal: request.signal,
        }),
    };
  };
}
