/**
 * Lua scripts for the store's multi-key writes. Each runs atomically inside Redis, so no update is
 * ever a read-modify-write from Node. Every key a script touches comes in KEYS, named in TypeScript
 * by src/redis/keys.ts: no script builds a key name.
 *
 * A script whose keys depend on what it would read (a bot's name, its token hash) is optimistic:
 * the caller reads those values, names the keys from them and passes the values along; the script
 * checks they still hold and otherwise writes nothing and answers STALE, for the caller to read
 * again. Like GUARDED_WRITES, such a call is safe to send twice (see redis-store.ts).
 */

import { BOT_EVENTS_KEPT } from './keys.ts';
import { MATCH_EVENTS_KEPT } from './match-event-codec.ts';

/**
 * Lua that ends a script with a NOPERM error unless its user may run `command` with `args` (all Lua
 * expressions: `"'SET'"`, `'KEYS[1]'`): Redis keeps what a script wrote before a command failed, so a script checks the
 * commands it will write with before its first write. Redis 7 gives a new ACL user no channel
 * unless told to, and an operator may deny single commands (`+@all -xadd`).
 */
function refuseUnlessAllowed(command: string, ...args: string[]): string {
  return `if not redis.acl_check_cmd(${command}, ${args.join(', ')}) then
  return redis.error_reply('NOPERM the Redis user may not run ' .. ${command} .. ' on ' .. ${args[0]})
end`;
}

/** The answer of an optimistic script whose reads changed before it ran: read again and retry. */
export const STALE = -2;

/**
 * KEYS: bot, botName, token, botsByName, activeBotsByName, leaderboard, leaderboardGames, guests,
 * and for a bot an account registers, the account's bots, its active bots and the account.
 * ARGV: id, nameMember, -rating, a guest's creation time ('' for any other bot), the most active
 * bots its account may have ('' for none), creation time, field, value, …
 * A guest goes only to the guests set: it is on no active list and no leaderboard. Returns 0 when
 * the name is taken, -1 when the account has its most active bots, -2 when it is closed, 1 when done.
 */
export const CREATE_BOT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if KEYS[11] and redis.call('HGET', KEYS[11], 'status') ~= 'active' then return -2 end
if KEYS[10] and redis.call('ZCARD', KEYS[10]) >= tonumber(ARGV[5]) then return -1 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
if KEYS[10] then
  redis.call('ZADD', KEYS[9], ARGV[6], ARGV[1])
  redis.call('ZADD', KEYS[10], ARGV[6], ARGV[1])
end
redis.call('ZADD', KEYS[4], 0, ARGV[2])
if ARGV[4] == '' then
  redis.call('ZADD', KEYS[5], 0, ARGV[2])
  redis.call('ZADD', KEYS[6], ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[7], 0, ARGV[1])
else
  redis.call('ZADD', KEYS[8], ARGV[4], ARGV[1])
end
return 1
`;

/**
 * KEYS: bot, botsByName, activeBotsByName, the bot-name key of its name as read, the bot-name key
 * of its new name (the same key when the name does not change, or only its case).
 * ARGV: its name as read, new name ('' to keep), its by-name member as read, its new by-name
 * member, id, then field/value pairs ('\0' as a value deletes the field).
 * Returns 0 when the bot is missing, -1 when the new name is taken, STALE when its name is no
 * longer the one read, 1 when done.
 */
export const UPDATE_BOT = `
local name = redis.call('HGET', KEYS[1], 'name')
if not name then return 0 end
if name ~= ARGV[1] then return ${STALE} end
if KEYS[4] ~= KEYS[5] then
  if redis.call('EXISTS', KEYS[5]) == 1 then return -1 end
  redis.call('DEL', KEYS[4])
  redis.call('SET', KEYS[5], ARGV[5])
end
if ARGV[2] ~= '' then
  redis.call('ZREM', KEYS[2], ARGV[3])
  redis.call('ZADD', KEYS[2], 0, ARGV[4])
  if redis.call('ZREM', KEYS[3], ARGV[3]) == 1 then redis.call('ZADD', KEYS[3], 0, ARGV[4]) end
  redis.call('HSET', KEYS[1], 'name', ARGV[2])
end
for i = 6, #ARGV, 2 do
  if ARGV[i + 1] == '\\0' then redis.call('HDEL', KEYS[1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

/**
 * KEYS: bot, the token key of its token hash as read, the token key of the new hash.
 * ARGV: its token hash as read, id, new token hash, webhook secret ('' for none).
 * Returns 0 when the bot is missing, -1 when it is retired (a retired bot gets no token), STALE
 * when its token hash is no longer the one read, 1 when done.
 */
export const REPLACE_SECRETS = `
local fields = redis.call('HMGET', KEYS[1], 'tokenHash', 'status')
if not fields[1] then return 0 end
if fields[2] == 'retired' then return -1 end
if fields[1] ~= ARGV[1] then return ${STALE} end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[1], 'tokenHash', ARGV[3])
if ARGV[4] == '' then redis.call('HDEL', KEYS[1], 'webhookSecret')
else redis.call('HSET', KEYS[1], 'webhookSecret', ARGV[4]) end
return 1
`;

/**
 * KEYS: bot, activeBotsByName, leaderboard, the token key of its token hash as read,
 * leaderboardGames, guests, and for an owned bot its account's active bots.
 * ARGV: its name as read, its token hash as read ('' for none), its by-name member, id.
 * Returns 0 when the bot is missing, STALE when its name or token hash is no longer the one read,
 * 1 when done (again, for a bot already retired: retiring is idempotent).
 */
export const RETIRE_BOT = `
local fields = redis.call('HMGET', KEYS[1], 'name', 'tokenHash')
if not fields[1] then return 0 end
if fields[1] ~= ARGV[1] or (fields[2] or '') ~= ARGV[2] then return ${STALE} end
redis.call('HSET', KEYS[1], 'status', 'retired')
redis.call('HDEL', KEYS[1], 'registeredFrom')
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZREM', KEYS[3], ARGV[4])
if fields[2] then redis.call('DEL', KEYS[4]) end
redis.call('ZREM', KEYS[5], ARGV[4])
redis.call('ZREM', KEYS[6], ARGV[4])
if KEYS[7] then redis.call('ZREM', KEYS[7], ARGV[4]) end
return 1
`;

/**
 * KEYS: leaderboard, leaderboardGames. ARGV: offset, limit, min games, most unranked to answer.
 * One page of the ranked bots (those with at least `min games` rated games, best rating first) and
 * the first unranked ones, read at once so that no bot shows in both or in neither. The unranked
 * are one range of leaderboardGames (few: new bots); each one's place in the leaderboard tells
 * how far the page's start moves past them. O(unranked · log n + limit).
 * Returns { ranked ids, unranked ids, ranked count, unranked count }.
 */
export const LEADERBOARD_SPLIT = `
local offset, limit, most = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
local below = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
local places, skip = {}, {}
for _, id in ipairs(below) do
  local place = redis.call('ZRANK', KEYS[1], id)
  if place then
    places[#places + 1] = place
    skip[place] = id
  end
end
table.sort(places)
local at = offset
for _, place in ipairs(places) do
  if place <= at then at = at + 1 else break end
end
local ranked = {}
while #ranked < limit do
  local ids = redis.call('ZRANGE', KEYS[1], at, at + limit - #ranked - 1)
  if #ids == 0 then break end
  for i, id in ipairs(ids) do
    if not skip[at + i - 1] then ranked[#ranked + 1] = id end
  end
  at = at + #ids
end
local unranked = {}
for i = 1, math.min(most, #places) do unranked[i] = skip[places[i]] end
return { ranked, unranked, redis.call('ZCARD', KEYS[1]) - #places, #places }
`;

/**
 * KEYS: leaderboard, leaderboardGames, then each bot's hash. ARGV: the bots' ids, in that order.
 * Gives each bot on the leaderboard that leaderboardGames lacks its rated games there (bots listed
 * before that set existed); a bot it holds already is left as it is. Returns how many it added.
 */
export const BACKFILL_LEADERBOARD_GAMES = `
local added = 0
for i, id in ipairs(ARGV) do
  if redis.call('ZSCORE', KEYS[1], id) and not redis.call('ZSCORE', KEYS[2], id) then
    redis.call('ZADD', KEYS[2], tonumber(redis.call('HGET', KEYS[i + 2], 'ratedGames') or '0'), id)
    added = added + 1
  end
end
return added
`;

/**
 * KEYS: match, matches:queued, matches:running, then the same pair for black and for white.
 * ARGV: id, now. A queued match becomes running; a running one (a resumed match) stays as it is.
 * Returns the status the match had, or nil when there is no such match.
 */
export const START_MATCH = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return nil end
if status == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'startedAt', ARGV[2])
  for i = 2, 6, 2 do
    redis.call('ZREM', KEYS[i], ARGV[1])
    redis.call('ZADD', KEYS[i + 1], 0, ARGV[1])
  end
end
return status
`;

/**
 * KEYS: moves, match, match events of each move in turn. ARGV: ply, packed move (see
 * move-codec.ts), run, follows ('1' or '0'), live event data ('' for none; see match-events.ts)
 * of each move in turn, then the stream-appends channel (see keys.ts).
 * Appends each move only when it is the next ply of a running match (the match's `moveCount` is
 * the ply before), so a retried or doubled worker never records a ply twice. A run (one worker's
 * pass over a match) sends a ply without waiting to hear that the one before it was stored; with
 * follows = '1' the ply before must be that run's own, so a ply whose predecessor was refused is
 * refused too. The match's `moveWriter` names the run and the ply it wrote last, so a ply written
 * meanwhile by anything else (even code that does not set `moveWriter`) breaks the chain. Many
 * matches' moves go in one call (see RedisStore.appendMove). Moves still in the old form (a list
 * of JSON moves) are refused: reading them (RedisStore.getMoves) packs them first.
 * An appended move with event data is told to spectators on the match's event stream, in the same
 * call, so the stream holds exactly the moves stored.
 * Returns, per move, 1 when appended, 0 when refused (the ply is taken, or the ply before is not
 * the run's), -1 when the match is not running.
 */
export const APPEND_MOVES = `
${refuseUnlessAllowed("'SPUBLISH'", 'ARGV[#ARGV]', "''")}
${refuseUnlessAllowed("'SET'", 'KEYS[1]', "''")}
${refuseUnlessAllowed("'HSET'", 'KEYS[2]', "'moveCount'", "''")}
${refuseUnlessAllowed("'XADD'", 'KEYS[3]', "'*'", "'type'", "'move'")}
local results = {}
for i = 1, #KEYS, 3 do
  local a = (i - 1) / 3 * 5 + 1
  local result = 1
  local fields = redis.call('HMGET', KEYS[i + 1], 'status', 'moveCount', 'moveWriter')
  if fields[1] ~= 'running' then result = -1
  elseif tonumber(fields[2] or '0') ~= tonumber(ARGV[a]) - 1 then result = 0
  elseif ARGV[a + 3] == '1' and fields[3] ~= ARGV[a + 2] .. ':' .. (tonumber(ARGV[a]) - 1) then result = 0
  else
    -- Moves still kept as a list (the old form) answer GET with an error: refused, and the
    -- runner's read packs them. Not APPEND: it leaves room to grow (up to as much again); a new
    -- value is allocated exactly.
    local stored = redis.pcall('GET', KEYS[i])
    if type(stored) == 'table' then result = 0 else
      redis.call('SET', KEYS[i], (stored or '') .. ARGV[a + 1])
      redis.call('HSET', KEYS[i + 1], 'moveCount', ARGV[a], 'moveWriter', ARGV[a + 2] .. ':' .. ARGV[a])
      if ARGV[a + 4] ~= '' then
        redis.call('XADD', KEYS[i + 2], 'MAXLEN', '~', ${MATCH_EVENTS_KEPT}, '*', 'type', 'move', 'data', ARGV[a + 4])
        redis.call('SPUBLISH', ARGV[#ARGV], KEYS[i + 2])
      end
    end
  end
  results[#results + 1] = result
end
return results
`;

/**
 * KEYS: match, match events. ARGV: the turn's event data (see match-events.ts), the stream-appends
 * channel (see keys.ts).
 * Tells spectators of a turn whose clock starts with no move before it in the run (the first turn,
 * or one a resumed match restarts), only while the match is running: a worker that lost its match
 * cannot add to a finished match's stream. Returns 1 when told, 0 when the match is not running.
 */
export const ANNOUNCE_TURN = `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
${refuseUnlessAllowed("'SPUBLISH'", 'ARGV[2]', "''")}
${refuseUnlessAllowed("'XADD'", 'KEYS[2]', "'*'", "'type'", "'turn'")}
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ${MATCH_EVENTS_KEPT}, '*', 'type', 'turn', 'data', ARGV[1])
redis.call('SPUBLISH', ARGV[2], KEYS[2])
return 1
`;

/**
 * KEYS: moves. ARGV: how many JSON moves the list held when read, the same moves packed.
 * Replaces a match's moves in the old form (a list of JSON moves) by the packed string, only if
 * the list still holds what was read; safe to run twice and from any reader. Returns 1 when
 * replaced, 0 when the key changed meanwhile (or was packed already).
 */
export const PACK_MOVES = `
if redis.call('TYPE', KEYS[1]).ok ~= 'list' or redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

/** Lua: the store's clock in epoch ms, as `now`. */
const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * KEYS: turn, the bot's events. ARGV: match id, ply, player, bot id, deadline, timeout ms, run,
 * black's rating, white's rating, the `yourTurn` event's data, the stream-appends channel. Opens a pull bot's turn, its start stamped by the store's clock, and tells the bot.
 * No expiry: a move or the worker closes the turn, and the match's finish deletes one a dead
 * worker left. Returns the start (epoch ms).
 */
export const OPEN_TURN = `
${refuseUnlessAllowed("'SPUBLISH'", 'ARGV[11]', "''")}
${refuseUnlessAllowed("'XADD'", 'KEYS[2]', "'*'", "'type'", "'yourTurn'")}
${refuseUnlessAllowed("'HSET'", 'KEYS[1]', "'ply'", "''")}
${NOW}
redis.call('HSET', KEYS[1], 'matchId', ARGV[1], 'ply', ARGV[2], 'player', ARGV[3], 'botId', ARGV[4],
  'deadline', ARGV[5], 'timeoutMs', ARGV[6], 'run', ARGV[7], 'ratingBlack', ARGV[8], 'ratingWhite', ARGV[9],
  'startedAt', now)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ${BOT_EVENTS_KEPT}, '*', 'type', 'yourTurn', 'data', ARGV[10])
redis.call('SPUBLISH', ARGV[11], KEYS[2])
return now
`;

/**
 * KEYS: turn. ARGV: ply. Closes the turn at that ply if it is still open (its time is up): 1 when
 * this closed it, 0 when a move closed it first.
 */
export const CLOSE_TURN = `
if redis.call('HGET', KEYS[1], 'ply') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * KEYS: turn, match, moves, match events, and the idempotency key (left out for none: an ACL
 * checks every key, even ''). ARGV: ply, bot id, the move's packed bytes, its `move` event's data,
 * the action's JSON, ttl seconds, the stream-appends channel.
 * Records a pull bot's move through its open turn, the one writer of that ply: only while the
 * turn at that ply is the bot's, its time on the store's clock is not up, and the match is running
 * at the ply before. Appends the move as the run that opened the turn, closes the turn, tells the
 * match's event stream (where the worker hears of it) and keeps the action under its key.
 * Returns 'recorded', 'late' or 'not-open'.
 */
export const RECORD_PULLED_MOVE = `
${refuseUnlessAllowed("'SPUBLISH'", 'ARGV[7]', "''")}
${refuseUnlessAllowed("'SET'", 'KEYS[3]', "''")}
${refuseUnlessAllowed("'HSET'", 'KEYS[2]', "'moveCount'", "''")}
${refuseUnlessAllowed("'XADD'", 'KEYS[4]', "'*'", "'type'", "'move'")}
local turn = redis.call('HMGET', KEYS[1], 'ply', 'botId', 'startedAt', 'timeoutMs', 'run')
if turn[1] ~= ARGV[1] or turn[2] ~= ARGV[2] then return 'not-open' end
${NOW}
if now > tonumber(turn[3]) + tonumber(turn[4]) then return 'late' end
local match = redis.call('HMGET', KEYS[2], 'status', 'moveCount')
if match[1] ~= 'running' or tonumber(match[2] or '0') ~= tonumber(ARGV[1]) - 1 then return 'not-open' end
redis.call('SET', KEYS[3], (redis.call('GET', KEYS[3]) or '') .. ARGV[3])
redis.call('HSET', KEYS[2], 'moveCount', ARGV[1], 'moveWriter', turn[5] .. ':' .. ARGV[1])
redis.call('DEL', KEYS[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ${MATCH_EVENTS_KEPT}, '*', 'type', 'move', 'data', ARGV[4])
redis.call('SPUBLISH', ARGV[7], KEYS[4])
if KEYS[5] then redis.call('SET', KEYS[5], ARGV[5], 'EX', ARGV[6]) end
return 'recorded'
`;

/**
 * KEYS: a bot's stream leases. ARGV: lease id, ttl ms, most leases. Takes or renews a lease on one
 * of a bot's few event streams and long polls, after dropping the expired ones (a process that
 * died without releasing its leases frees them this way). Returns 1 when held, 0 when the bot
 * already holds the most it may.
 */
export const HOLD_STREAM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1
`;

/**
 * An optimistic transaction that, unlike WATCH/MULTI, is safe to send twice: ioredis sends again
 * the commands a dropped connection left unanswered, and a WATCH does not survive the reconnect,
 * so a resent EXEC would apply a second time. Here the check and the writes are one script: a
 * resent call finds its guards broken by its own first run and writes nothing.
 * KEYS: every key the guards and writes name. ARGV: the guard count, then per guard its kind, its
 * key's index and two values: `hash` guards a hash field and the value it must hold ('\0': no
 * such field); `not` guards that a hash field does not hold a value (it may be missing); `fewer`
 * guards that a sorted set holds fewer members than a count (the second value is unused). Then per
 * write the count of what follows, the command, its key's index and its arguments. `XADD_ALONE`
 * (its arguments: field, value, …) adds an entry to a stream that then holds it alone.
 * Returns 1 when the writes were made, -i when guard i (from 1) failed (nothing written).
 */
export const GUARDED_WRITES = `
local a = 2
for i = 1, tonumber(ARGV[1]) do
  local key = KEYS[tonumber(ARGV[a + 1])]
  if ARGV[a] == 'fewer' then
    if redis.call('ZCARD', key) >= tonumber(ARGV[a + 2]) then return -i end
  else
    local value = redis.call('HGET', key, ARGV[a + 2])
    if ARGV[a] == 'not' then
      if value == ARGV[a + 3] then return -i end
    elseif ARGV[a + 3] == '\\0' then
      if value then return -i end
    elseif value ~= ARGV[a + 3] then return -i end
  end
  a = a + 4
end
local writes = {}
while a <= #ARGV do
  local count = tonumber(ARGV[a])
  local write = { command = ARGV[a + 1], key = KEYS[tonumber(ARGV[a + 2])], args = {} }
  for j = 1, count - 2 do write.args[j] = ARGV[a + 2 + j] end
  -- Every write is allowed before any is made: a script that fails halfway keeps what it wrote.
  if write.command == 'XADD_ALONE' then
    ${refuseUnlessAllowed("'DEL'", 'write.key')}
    ${refuseUnlessAllowed("'XADD'", 'write.key', "'*'", 'unpack(write.args)')}
  else
    ${refuseUnlessAllowed('write.command', 'write.key', 'unpack(write.args)')}
  end
  writes[#writes + 1] = write
  a = a + 1 + count
end
for _, write in ipairs(writes) do
  if write.command == 'XADD_ALONE' then
    -- Trimming a stream only marks the entries in its nodes: its memory stays. Built anew, the
    -- stream holds the entry alone, under the id it took after the others.
    local id = redis.call('XADD', write.key, '*', unpack(write.args))
    redis.call('DEL', write.key)
    redis.call('XADD', write.key, id, unpack(write.args))
  else
    redis.call(write.command, write.key, unpack(write.args))
  end
end
return 1
`;

/** KEYS: the lock. ARGV: the holder's token. Deletes the lock only if that holder still has it. */
export const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS: the legacy rated-results list, the rated-tallies hash. ARGV: batch size.
 * Moves up to a batch of results from the head of the list into the tallies (each list entry is
 * already a tally field), atomically, so a result is counted once however often this runs or
 * wherever it stops. Returns how many entries the list still holds.
 */
export const FOLD_RATED_RESULTS = `
local entries = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
for _, entry in ipairs(entries) do redis.call('HINCRBY', KEYS[2], entry, 1) end
if #entries > 0 then redis.call('LTRIM', KEYS[1], #entries, -1) end
return redis.call('LLEN', KEYS[1])
`;

/**
 * KEYS: account, accountName, accountToken. ARGV: id, then field/value pairs.
 * Returns 0 when the name is taken, 1 when done.
 */
export const CREATE_ACCOUNT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;

/**
 * KEYS: account, the token key of its token hash as read, the token key of the new hash.
 * ARGV: its token hash as read, id, new token hash.
 * Returns 0 when the account is missing, -1 when it is closed, STALE when its token hash is no
 * longer the one read, 1 when done.
 */
export const REPLACE_ACCOUNT_TOKEN = `
local fields = redis.call('HMGET', KEYS[1], 'tokenHash', 'status')
if not fields[1] and not fields[2] then return 0 end
if fields[2] == 'closed' then return -1 end
if fields[1] ~= ARGV[1] then return ${STALE} end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[1], 'tokenHash', ARGV[3])
return 1
`;

/**
 * KEYS: account, the token key of its token hash as read, its active bots.
 * ARGV: its token hash as read ('' for none).
 * Closes the account once it has no active bot (its owner retires them first): its token stops
 * working, and no bot can be registered for it any more. Returns 0 when the account is missing,
 * STALE when its token or its active bots changed since read, 1 when done (again: idempotent).
 */
export const CLOSE_ACCOUNT = `
local fields = redis.call('HMGET', KEYS[1], 'tokenHash', 'status')
if not fields[1] and not fields[2] then return 0 end
if fields[2] == 'closed' then return 1 end
if (fields[1] or '') ~= ARGV[1] or redis.call('ZCARD', KEYS[3]) > 0 then return ${STALE} end
if fields[1] then redis.call('DEL', KEYS[2]) end
redis.call('HSET', KEYS[1], 'status', 'closed')
redis.call('HDEL', KEYS[1], 'tokenHash')
return 1
`;
