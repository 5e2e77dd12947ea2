/**
 * Lua scripts for tournament entries. As in lua-scripts.ts, every key comes in KEYS, named by
 * keys.ts. Starting a tournament, adding a round and finishing one are GUARDED_WRITES calls (see
 * redis-tournament-store.ts): they write many keys only if the tournament is still as read.
 */

/**
 * KEYS: tournament, its entrants. ARGV: bot id, now, most entrants, the `entrantsVersion` the
 * caller checked the entrants at ('' when it checked none).
 * Returns 1 when entered, 0 when there is no such tournament, -1 when it is not open, -2 when the
 * bot is in it already, -3 when it is full, -4 when its entries changed since that version. An
 * entry bumps `entrantsVersion` (see start).
 */
export const ENTER_TOURNAMENT = `
local fields = redis.call('HMGET', KEYS[1], 'status', 'entrantsVersion')
local status = fields[1]
if not status then return 0 end
if status ~= 'open' then return -1 end
if ARGV[4] ~= '' and (fields[2] or '0') ~= ARGV[4] then return -4 end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return -2 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -3 end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'entrantsVersion', 1)
return 1
`;

/**
 * KEYS: tournament, its entrants. ARGV: bot id.
 * Returns 1 when withdrawn, 0 when there is no such tournament, -1 when it is not open, -2 when the
 * bot is not in it, -3 when it is the gauntlet's challenger (who cannot leave its own gauntlet).
 */
export const LEAVE_TOURNAMENT = `
local fields = redis.call('HMGET', KEYS[1], 'status', 'challenger')
if not fields[1] then return 0 end
if fields[1] ~= 'open' then return -1 end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return -2 end
if fields[2] == ARGV[1] then return -3 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'entrantsVersion', 1)
return 1
`;
