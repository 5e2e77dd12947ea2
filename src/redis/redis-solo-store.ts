import type { RedisClient } from '../connections/redis-connection.ts';
import type { SoloLeagueEntry, SoloLeagueStore, SoloLeagueTally } from '../store/solo-store.ts';
import type { StoreKeys } from './keys.ts';

/**
 * The solo league on Redis: per week, a hash of entries (bot id -> `<enteredAt> <match ids…>`)
 * and a hash of ended games' tallies (match id -> `<score> <time used ms>`).
 */
export class RedisSoloLeagueStore implements SoloLeagueStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: StoreKeys,
  ) {}

  async enter(week: string, entry: SoloLeagueEntry): Promise<boolean> {
    const value = [entry.enteredAt, ...entry.matchIds].join(' ');
    return (await this.redis.hsetnx(this.keys.soloLeagueEntries(week), entry.botId, value)) === 1;
  }

  async withdraw(week: string, botId: string): Promise<void> {
    await this.redis.hdel(this.keys.soloLeagueEntries(week), botId);
  }

  async entries(week: string): Promise<SoloLeagueEntry[]> {
    const hash = await this.redis.hgetall(this.keys.soloLeagueEntries(week));
    return Object.entries(hash).map(([botId, value]) => {
      const [enteredAt, ...matchIds] = value.split(' ');
      return { botId, enteredAt: Number(enteredAt), matchIds };
    });
  }

  async tallies(week: string): Promise<Map<string, SoloLeagueTally>> {
    const hash = await this.redis.hgetall(this.keys.soloLeagueTallies(week));
    return new Map(
      Object.entries(hash).map(([matchId, value]) => {
        const [score, timeUsedMs] = value.split(' ').map(Number);
        return [matchId, { score: score!, timeUsedMs: timeUsedMs! }];
      }),
    );
  }

  async keepTallies(week: string, tallies: ReadonlyMap<string, SoloLeagueTally>): Promise<void> {
    if (tallies.size === 0) return;
    const fields = [...tallies].flatMap(([id, { score, timeUsedMs }]) => [id, `${score} ${timeUsedMs}`]);
    await this.redis.hset(this.keys.soloLeagueTallies(week), ...fields);
  }
}
