import type { MatchStatus } from '../model/records.ts';

/**
 * Every key the store uses, under one prefix (`arena` by default, `test-<uuid>` in tests). The one
 * place key names are made: Lua scripts get every key they touch in KEYS, named here.
 */
export function storeKeys(prefix: string) {
  const p = `${prefix}:`;
  return {
    bot: (id: string) => `${p}bot:${id}`,
    /** Hash of an account: id, name, status, tokenHash, createdAt. */
    account: (id: string) => `${p}account:${id}`,
    accountName: (name: string) => `${p}account-name:${name.toLowerCase()}`,
    accountToken: (tokenHash: string) => `${p}account-token:${tokenHash}`,
    /** Sorted set of every bot an account registered, scored by when (retired ones stay). */
    accountBots: (accountId: string) => `${p}account:${accountId}:bots`,
    /** Of those, the active ones: what the cap on an owner's bots counts. */
    accountActiveBots: (accountId: string) => `${p}account:${accountId}:active-bots`,
    /** Sorted set of the challenges an owner's bots made that are pending, queued or running. */
    ownerChallenges: (accountId: string) => `${p}account:${accountId}:challenges`,
    /** Hash of a passkey (see sign-in-store.ts), by its credential id. */
    passkey: (credentialId: string) => `${p}passkey:${credentialId}`,
    /** Set of an account's passkey ids. */
    accountPasskeys: (accountId: string) => `${p}account:${accountId}:passkeys`,
    /** A WebAuthn ceremony's state (its challenge), taken once, gone after a few minutes. */
    ceremony: (id: string) => `${p}ceremony:${id}`,
    /** Hash of a browser session, by the hash of its cookie; expires with the session. */
    session: (tokenHash: string) => `${p}session:${tokenHash}`,
    /** Set of an account's session hashes (to end them all when it closes). */
    accountSessions: (accountId: string) => `${p}account:${accountId}:sessions`,
    /** The account an OpenID subject signs in to (`subjectKey` is a hash of issuer and subject). */
    oidcSubject: (subjectKey: string) => `${p}oidc-subject:${subjectKey}`,
    /** Set of an account's OpenID subject keys. */
    accountSubjects: (accountId: string) => `${p}account:${accountId}:oidc`,
    botName: (name: string) => `${p}bot-name:${name.toLowerCase()}`,
    token: (tokenHash: string) => `${p}token:${tokenHash}`,
    /** Sorted set, all scores 0, members `<lowercase name> <id>`: name order and prefix search. */
    botsByName: `${p}bots:by-name`,
    activeBotsByName: `${p}bots:active-by-name`,
    /**
     * Sorted set of active bots (guests aside) scored by minus their rating: ZRANGE gives best
     * first, ties by id. Ranked and unranked alike: the split is made when read (see ratings.ts).
     */
    leaderboard: `${p}leaderboard`,
    /**
     * Sorted set of the same bots scored by their rated games, kept with `leaderboard`: the bots
     * under LEADERBOARD_MIN_GAMES (the unranked) are one range of it, whatever that setting is.
     */
    leaderboardGames: `${p}leaderboard:games`,
    /** The slow pool's leaderboard and rated games, kept as `leaderboard` and `leaderboardGames` are. */
    slowLeaderboard: `${p}leaderboard:slow`,
    slowLeaderboardGames: `${p}leaderboard:slow:games`,
    /** Sorted set of the active guests, scored by when each was last seen playing (see arena/guests.ts). */
    guests: `${p}guests`,
    /** The deployment's key of the client-origin HMAC (see http/rate-limit.ts clientOriginHasher). */
    clientOriginKey: `${p}clientOriginKey`,
    /** String: the key the solo game's layouts are drawn with (never served). */
    soloLayoutKey: `${p}solo:layoutKey`,
    /** Hash, per solo league week: bot id -> `<enteredAt> <match ids…>`. */
    soloLeagueEntries: (week: string) => `${p}solo:league:${week}:entries`,
    /** Hash, per solo league week: ended game's match id -> `<score> <time used ms>`. */
    soloLeagueTallies: (week: string) => `${p}solo:league:${week}:tallies`,
    /** List of a bot's rating changes as JSON, oldest first. */
    ratingHistory: (botId: string) => `${p}bot:${botId}:ratings`,
    /** The slow pool's rating history of a bot, as `ratingHistory`. */
    slowRatingHistory: (botId: string) => `${p}bot:${botId}:ratings:slow`,
    /**
     * Legacy list of every rated result as `<black id> <white id> <black score>`; nothing writes it
     * any more: the first fit folds it into `ratedTallies` and it is gone (see store/ratings.ts).
     */
    ratedResults: `${p}rated-results`,
    /**
     * Hash `<black id> <white id> <black score>` → how many rated results ended so (score 1, 0.5 or
     * 0): the Bradley–Terry fit's input, counted in the same guarded script that finishes a match.
     */
    ratedTallies: `${p}rated-tallies`,
    /** Hash bot id → Bradley–Terry strength JSON, replaced whole by each recomputation. */
    strength: `${p}strength`,
    strengthComputedAt: `${p}strength:computed-at`,
    /** Hash bot id → black games minus white games among matchmade matches (colours alternate by it). */
    colorBalance: `${p}color-balance`,
    /** A lock held by one process at a time (its value names the holder), e.g. the matchmaking round. */
    lock: (name: string) => `${p}lock:${name}`,
    match: (id: string) => `${p}match:${id}`,
    /** Hash of the open turn of a pull bot: ply, player, botId, startedAt, deadline. */
    /** Hash: a pull bot's open turn (see OPEN_TURN); the move recorded through it closes it. */
    turn: (matchId: string) => `${p}match:${matchId}:turn`,
    /** A pull action recorded under its bot's Idempotency-Key (a retry is told from a conflict). */
    idempotency: (matchId: string, key: string) => `${p}match:${matchId}:idem:${key}`,
    /**
     * Stream of a match's live events for spectators (turn, move, finished; see match-events.ts);
     * ids are the SSE event ids. Written by the move-append, turn and finish scripts.
     */
    matchEvents: (matchId: string) => `${p}match:${matchId}:events`,
    /** Stream of a bot's events (matchStarted, yourTurn, matchFinished); ids are the SSE event ids. */
    botEvents: (botId: string) => `${p}bot:${botId}:events`,
    /**
     * The channel every writer of a waited stream (a bot's or a match's events) publishes the
     * stream's key on, in the same atomic step as its XADD: what wakes the waits (see StreamWaits).
     */
    streamAppends: `${p}streams:appended`,
    /** Sorted set of the challenges (matches created with its token) a bot has queued or running. */
    botChallenges: (botId: string) => `${p}bot:${botId}:challenges`,
    /** Sorted set of the challenges aimed at a bot (made by another bot's token) queued or running. */
    botChallengesAgainst: (botId: string) => `${p}bot:${botId}:challenged`,
    /** Of those, the ones made from one origin (a challenge's `origin`, a hashed client address group). */
    botChallengesAgainstFrom: (botId: string, origin: string) => `${p}bot:${botId}:challenged:${origin}`,
    /**
     * Sorted set of the matches the arena made (matchmaking's, tournaments', the admin's) a bot has
     * queued or running: what its matchmaking capacity counts, which challenges must not fill.
     */
    botArenaMatches: (botId: string) => `${p}bot:${botId}:arena-matches`,
    /** Sorted set of a bot's open event streams and long polls, scored by when each lease expires. */
    botStreams: (botId: string) => `${p}bot:${botId}:streams`,
    /** Present while a bot listens to its event stream. */
    botOnline: (botId: string) => `${p}bot:${botId}:online`,
    /**
     * What each rate limiter's counter keys start with (rate-limit-redis appends the client's key):
     * the general limit per principal or address, registrations per address, checks per bot.
     */
    rateLimit: (limiter: RateLimiter) => `${p}rate:${RATE_LIMITER_KEY[limiter]}`,
    moves: (id: string) => `${p}match:${id}:moves`,
    /** Sorted sets of match ids, all scores 0; ids are ULIDs, so lexical order is creation order. */
    matches: (status?: MatchStatus) => (status ? `${p}matches:${status}` : `${p}matches:all`),
    botMatches: (botId: string, status?: MatchStatus) =>
      status ? `${p}bot:${botId}:matches:${status}` : `${p}bot:${botId}:matches:all`,
    /** Hash of a tournament's settings and state (see tournament-store.ts). */
    tournament: (id: string) => `${p}tournament:${id}`,
    /** Sorted set of a tournament's entrants, scored by when each entered. */
    tournamentEntrants: (id: string) => `${p}tournament:${id}:entrants`,
    /** Hash round number → the round's JSON (its bye and games, with their match ids). */
    tournamentRounds: (id: string) => `${p}tournament:${id}:rounds`,
    /** Sorted set of every tournament id, all scores 0: lexical order is creation order. */
    tournaments: `${p}tournaments`,
    /** Sorted set of the open tournaments that start by themselves, scored by their start time. */
    tournamentsScheduled: `${p}tournaments:scheduled`,
    /** Set of the running tournaments' ids: what the workers' sweep looks at. */
    tournamentsRunning: `${p}tournaments:running`,
  };
}

export type StoreKeys = ReturnType<typeof storeKeys>;

/** The API's rate limiters, each with counters of its own. */
export type RateLimiter =
  | 'requests'
  | 'registrations'
  | 'guests'
  | 'checks'
  | 'exports'
  | 'challenges'
  | 'challengesByAddress'
  | 'accounts';

const RATE_LIMITER_KEY: Record<RateLimiter, string> = {
  requests: '',
  registrations: 'register:',
  guests: 'guest:',
  checks: 'check:',
  exports: 'export:',
  challenges: 'challenge:',
  challengesByAddress: 'challenge-address:',
  accounts: 'account:',
};

/**
 * How many events a bot's stream keeps (trimmed approximately, `MAXLEN ~`: a little more, as Redis
 * drops whole nodes). A bot that reconnects from further back gets the snapshot of its open turns,
 * as a fresh connection does. The bound is what each bot's stream costs: about 35 kB for a push bot,
 * 270 kB for a pull bot, whose `yourTurn` events carry the state (docs/storage.md).
 */
export const BOT_EVENTS_KEPT = 100;

/**
 * Whether a key (what follows the prefix and its colon) is one of signing in's, which the sign-in
 * store keeps under a prefix of their own on a cluster (config.ts `signInPrefix`): the keys
 * `passkey`, `ceremony`, `session`, `oidcSubject`, `accountPasskeys`, `accountSessions` and
 * `accountSubjects` above make.
 */
export function isSignInKey(rest: string): boolean {
  return /^(passkey|ceremony|session|oidc-subject):|^account:[^:]+:(passkeys|sessions|oidc)$/.test(rest);
}

/** The member a bot has in the by-name sets. */
export function nameMember(name: string, id: string): string {
  return `${name.toLowerCase()} ${id}`;
}

/** The bot id of a by-name member (the inverse of `nameMember`). */
export function idOfNameMember(member: string): string {
  return member.slice(member.indexOf(' ') + 1);
}
