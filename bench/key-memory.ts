/**
 * What the keys under a prefix hold in Redis (`MEMORY USAGE … SAMPLES 0`: every element counted,
 * not an estimate from a few), by key kind, with those that have a time to live apart.
 */

import type { RedisClient } from '../src/connections/redis-connection.ts';
import { scanBatches } from '../src/redis/maintenance.ts';

export interface KindMemory {
  keys: number;
  bytes: number;
}

export interface KeyMemory {
  /** Bytes of keys with no time to live. */
  readonly lasting: number;
  /** Bytes of keys with a time to live: they go by themselves. */
  readonly expiring: number;
  readonly lastingByKind: ReadonlyMap<string, KindMemory>;
  readonly expiringByKind: ReadonlyMap<string, KindMemory>;
}

/** A key's kind: its name under the prefix with ids and numbers replaced, e.g. `match:*:moves`. */
export function kindOf(prefix: string, key: string): string {
  return key
    .slice(prefix.length + 1)
    .replace(/(match|bot|acct)_[0-9A-Z]{26}/g, '$1_*')
    .replace(/^(token|bot-name|account-token):.*/, '$1:*')
    .replace(/:\d+(?=:|$)/g, ':#');
}

export async function keyMemory(redis: RedisClient, prefix: string): Promise<KeyMemory> {
  const lastingByKind = new Map<string, KindMemory>();
  const expiringByKind = new Map<string, KindMemory>();
  let lasting = 0;
  let expiring = 0;
  for await (const { server, keys } of scanBatches(redis, `${prefix}:*`)) {
    const pipeline = server.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0').pttl(key);
    const replies = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      const bytes = Number(replies[2 * i]?.[1] ?? 0);
      const hasTtl = Number(replies[2 * i + 1]?.[1] ?? -1) > 0;
      if (hasTtl) expiring += bytes;
      else lasting += bytes;
      const byKind = hasTtl ? expiringByKind : lastingByKind;
      const kind = byKind.get(kindOf(prefix, key)) ?? { keys: 0, bytes: 0 };
      kind.keys++;
      kind.bytes += bytes;
      byKind.set(kindOf(prefix, key), kind);
    });
  }
  return { lasting, expiring, lastingByKind, expiringByKind };
}
