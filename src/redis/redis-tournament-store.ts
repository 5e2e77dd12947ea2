import { luaCommand } from '../connections/lua-command.ts';
import type { RedisClient } from '../connections/redis-connection.ts';
import { InvalidCursorError } from '../model/errors.ts';
import type { MatchRecord, MatchRules, Page } from '../model/records.ts';
import type {
  EnterOutcome,
  LeaveOutcome,
  NewRound,
  TournamentListing,
  TournamentRecord,
  TournamentRound,
  TournamentState,
  TournamentStore,
} from '../store/tournament-store.ts';
import { ID_PATTERN } from '../support/ids.ts';
import { decodeCursor, decodeMatch, encodeCursor } from './codec.ts';
import { GuardedWrites } from './guarded-writes.ts';
import { type StoreKeys, storeKeys } from './keys.ts';
import { GUARDED_WRITES } from './lua-scripts.ts';
import { guardPlayersActive, writeNewMatch } from './new-match.ts';
import { readHashes } from './read.ts';
import { ENTER_TOURNAMENT, LEAVE_TOURNAMENT } from './tournament-scripts.ts';

const ENTER: Record<number, EnterOutcome> = {
  1: 'entered',
  0: 'missing',
  [-1]: 'not-open',
  [-2]: 'already-entered',
  [-3]: 'full',
  [-4]: 'changed',
};
const LEAVE: Record<number, LeaveOutcome> = {
  1: 'left',
  0: 'missing',
  [-1]: 'not-open',
  [-2]: 'not-entered',
  [-3]: 'challenger',
};

const optionalNumber = (value: string | undefined) =>
  value === undefined || value === '' ? null : Number(value);

/** A tournament's hash fields. Its rules and seeds are JSON: a tournament hash is one per tournament, not per game. */
function tournamentFields(t: TournamentRecord): string[] {
  const fields: Record<string, string> = {
    id: t.id,
    name: t.name,
    format: t.format,
    status: t.status,
    openings: t.openings,
    gamesPerPairing: String(t.gamesPerPairing),
    rated: t.rated ? '1' : '0',
    minRatedGames: String(t.minRatedGames),
    rules: JSON.stringify(t.rules),
    createdAt: String(t.createdAt),
    minEntrants: String(t.minEntrants),
    roundsCreated: String(t.roundsCreated),
    entrantsVersion: String(t.entrantsVersion),
  };
  if (t.roundCount !== null) fields.roundCount = String(t.roundCount);
  if (t.challenger !== null) fields.challenger = t.challenger;
  if (t.startsAt !== null) fields.startsAt = String(t.startsAt);
  if (t.series !== null) fields.series = t.series;
  if (t.startedAt !== null) fields.startedAt = String(t.startedAt);
  if (t.finishedAt !== null) fields.finishedAt = String(t.finishedAt);
  if (t.seeds !== null) fields.seeds = JSON.stringify(t.seeds);
  return Object.entries(fields).flat();
}

function decodeTournament(hash: Record<string, string>): TournamentRecord | null {
  if (hash.id === undefined || hash.format === undefined) return null;
  return {
    id: hash.id,
    name: hash.name ?? '',
    format: hash.format as TournamentRecord['format'],
    status: (hash.status ?? 'open') as TournamentRecord['status'],
    openings: hash.openings === 'balanced' ? 'balanced' : 'standard',
    gamesPerPairing: hash.gamesPerPairing === '1' ? 1 : 2,
    rated: hash.rated === '1',
    minRatedGames: Number(hash.minRatedGames ?? 0),
    rules: JSON.parse(hash.rules ?? '{}') as MatchRules,
    roundCount: optionalNumber(hash.roundCount),
    challenger: hash.challenger ?? null,
    createdAt: Number(hash.createdAt),
    startsAt: optionalNumber(hash.startsAt),
    minEntrants: Number(hash.minEntrants ?? 2),
    series: hash.series ?? null,
    startedAt: optionalNumber(hash.startedAt),
    finishedAt: optionalNumber(hash.finishedAt),
    seeds: hash.seeds === undefined ? null : (JSON.parse(hash.seeds) as string[]),
    roundsCreated: Number(hash.roundsCreated ?? 0),
    entrantsVersion: Number(hash.entrantsVersion ?? 0),
  };
}

function encodeRound(round: TournamentRound): string {
  return JSON.stringify({ bye: round.bye, games: round.games });
}

function decodeRounds(hash: Record<string, string>): TournamentRound[] {
  return Object.entries(hash)
    .map(([number, json]) => ({
      number: Number(number),
      ...(JSON.parse(json) as Omit<TournamentRound, 'number'>),
    }))
    .sort((a, b) => a.number - b.number);
}

/**
 * Tournaments on Redis, under the store's prefix (see keys.ts). Entries are Lua scripts; a start, a
 * new round and a finish are GUARDED_WRITES calls: the tournament's status and round count (and,
 * for a start, its entries) must still be as read, so two workers pairing the same round at once
 * store it once, and a call the client resends after a dropped connection writes nothing twice.
 */
export class RedisTournamentStore implements TournamentStore {
  readonly keys: StoreKeys;
  private readonly scripts;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
    this.scripts = {
      enter: luaCommand(redis, ENTER_TOURNAMENT, 2),
      leave: luaCommand(redis, LEAVE_TOURNAMENT, 2),
      guardedWrites: luaCommand(redis, GUARDED_WRITES, undefined),
    };
  }

  async createTournament(tournament: TournamentRecord, entrants: readonly string[]): Promise<void> {
    const k = this.keys;
    const tx = new GuardedWrites().guard(k.tournament(tournament.id), 'id', undefined);
    tx.write('HSET', k.tournament(tournament.id), ...tournamentFields(tournament));
    // Same-millisecond entries tie on score; the fraction keeps the order they were listed in.
    entrants.forEach((botId, i) => {
      tx.write('ZADD', k.tournamentEntrants(tournament.id), tournament.createdAt + i / 1000, botId);
    });
    tx.write('ZADD', k.tournaments, 0, tournament.id);
    if (tournament.startsAt !== null) {
      tx.write('ZADD', k.tournamentsScheduled, tournament.startsAt, tournament.id);
    }
    await tx.run(this.scripts.guardedWrites);
  }

  async getTournament(id: string): Promise<TournamentState | null> {
    const k = this.keys;
    const replies = (await this.redis
      .multi()
      .hgetall(k.tournament(id))
      .zrange(k.tournamentEntrants(id), 0, -1)
      .hgetall(k.tournamentRounds(id))
      .exec()) as [Error | null, unknown][] | null;
    const [hash, entrants, rounds] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    }) as [Record<string, string>, string[], Record<string, string>];
    const tournament = decodeTournament(hash ?? {});
    if (tournament === null) return null;
    return { tournament, entrants, rounds: decodeRounds(rounds ?? {}) };
  }

  async listTournaments(limit: number, cursor?: string): Promise<Page<TournamentListing>> {
    const k = this.keys;
    let max = '+';
    if (cursor !== undefined) {
      const after = decodeCursor(cursor, ID_PATTERN.tournament);
      if (after === null) throw new InvalidCursorError();
      max = `(${after}`;
    }
    const ids = await this.redis.zrevrangebylex(k.tournaments, max, '-', 'LIMIT', 0, limit + 1);
    const page = ids.slice(0, limit);
    const pipeline = this.redis.pipeline();
    for (const id of page) pipeline.hgetall(k.tournament(id)).zcard(k.tournamentEntrants(id));
    const replies = page.length === 0 ? [] : ((await pipeline.exec()) ?? []);
    const items: TournamentListing[] = [];
    for (let i = 0; i < page.length; i++) {
      const [[hashError, hash], [countError, count]] = [replies[2 * i]!, replies[2 * i + 1]!];
      if (hashError ?? countError) throw hashError ?? countError;
      const tournament = decodeTournament(hash as Record<string, string>);
      if (tournament !== null) items.push({ tournament, entrantCount: count as number });
    }
    const last = page.at(-1);
    return { items, nextCursor: ids.length > limit && last !== undefined ? encodeCursor(last) : null };
  }

  async enter(
    id: string,
    botId: string,
    now: number,
    maxEntrants: number,
    entrantsVersion?: number,
  ): Promise<EnterOutcome> {
    const k = this.keys;
    const outcome = await this.scripts.enter(
      k.tournament(id),
      k.tournamentEntrants(id),
      botId,
      now,
      maxEntrants,
      entrantsVersion === undefined ? '' : String(entrantsVersion),
    );
    return ENTER[outcome] ?? 'missing';
  }

  async leave(id: string, botId: string): Promise<LeaveOutcome> {
    const k = this.keys;
    const outcome = await this.scripts.leave(k.tournament(id), k.tournamentEntrants(id), botId);
    return LEAVE[outcome] ?? 'missing';
  }

  start(
    id: string,
    entrantsVersion: number,
    start: { readonly seeds: readonly string[]; readonly roundCount: number; readonly startedAt: number },
    first: NewRound,
  ): Promise<boolean> {
    const k = this.keys;
    const tx = new GuardedWrites()
      .guard(k.tournament(id), 'status', 'open')
      .guard(k.tournament(id), 'entrantsVersion', String(entrantsVersion));
    tx.write(
      'HSET',
      k.tournament(id),
      'status',
      'running',
      'startedAt',
      String(start.startedAt),
      'seeds',
      JSON.stringify(start.seeds),
      'roundCount',
      String(start.roundCount),
    );
    tx.write('SADD', k.tournamentsRunning, id);
    tx.write('ZREM', k.tournamentsScheduled, id);
    this.writeRound(tx, id, first);
    return tx.run(this.scripts.guardedWrites);
  }

  addRound(id: string, after: number, next: NewRound): Promise<boolean> {
    const tx = this.whileRunningAfter(id, after);
    this.writeRound(tx, id, next);
    return tx.run(this.scripts.guardedWrites);
  }

  cancel(id: string, at: number): Promise<boolean> {
    const k = this.keys;
    const tx = new GuardedWrites().guard(k.tournament(id), 'status', 'open');
    tx.write('HSET', k.tournament(id), 'status', 'cancelled', 'finishedAt', String(at));
    tx.write('ZREM', k.tournamentsScheduled, id);
    return tx.run(this.scripts.guardedWrites);
  }

  discard(id: string): Promise<boolean> {
    const k = this.keys;
    const tx = new GuardedWrites()
      .guard(k.tournament(id), 'status', 'open')
      .guardFewer(k.tournamentEntrants(id), 1);
    tx.write('DEL', k.tournament(id));
    tx.write('ZREM', k.tournaments, id);
    tx.write('ZREM', k.tournamentsScheduled, id);
    return tx.run(this.scripts.guardedWrites);
  }

  dueToStart(now: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.tournamentsScheduled, '-inf', now, 'LIMIT', 0, limit);
  }

  finish(id: string, after: number, finishedAt: number): Promise<boolean> {
    const k = this.keys;
    const tx = this.whileRunningAfter(id, after);
    tx.write('HSET', k.tournament(id), 'status', 'finished', 'finishedAt', String(finishedAt));
    tx.write('SREM', k.tournamentsRunning, id);
    return tx.run(this.scripts.guardedWrites);
  }

  /** Writes that apply only while the tournament runs with `after` rounds made (no one moved it on). */
  private whileRunningAfter(id: string, after: number): GuardedWrites {
    const key = this.keys.tournament(id);
    return new GuardedWrites().guard(key, 'status', 'running').guard(key, 'roundsCreated', String(after));
  }

  /** The round, the round count that names it current, and its matches, as writes of one call. */
  private writeRound(tx: GuardedWrites, id: string, { round, matches }: NewRound): void {
    const k = this.keys;
    tx.write('HSET', k.tournamentRounds(id), String(round.number), encodeRound(round));
    tx.write('HSET', k.tournament(id), 'roundsCreated', String(round.number));
    // A player that retired after the round was paired: the write is refused, and the next step
    // pairs the round again with that bot withdrawn.
    guardPlayersActive(
      tx,
      k,
      matches.flatMap((match) => [match.black.id, match.white.id]),
    );
    for (const match of matches) writeNewMatch(tx, k, match);
  }

  runningIds(limit: number): Promise<string[]> {
    return this.redis.srandmember(this.keys.tournamentsRunning, limit);
  }

  async getMatches(ids: readonly string[]): Promise<(MatchRecord | null)[]> {
    return (
      await readHashes(
        this.redis,
        ids.map((id) => this.keys.match(id)),
      )
    ).map(decodeMatch);
  }
}
