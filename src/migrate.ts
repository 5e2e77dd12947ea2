/**
 * `npm run migrate -- --from redis://old-host:6379`: copies a one-server arena's keys into the store
 * this arena is configured for (REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES, REDIS_PREFIX),
 * under the prefix that store uses (a hash tag on a cluster). Run it with the arena stopped.
 */
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import { loadConfig } from './config.ts';
import { connected, createRedis, describeTarget } from './connections/redis-connection.ts';
import { copyStore, migrationKey, StoreCopyRefused } from './redis/store-copy.ts';
import { StartupError } from './support/startup-error.ts';

const USAGE = 'usage: npm run migrate -- --from <redis URL of the old server> [--from-prefix <prefix>]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { from: { type: 'string' }, 'from-prefix': { type: 'string' } },
  });
  if (values.from === undefined) throw new StartupError(USAGE);
  const config = loadConfig();
  const targetPrefix = config.redis.prefix;
  // The old server's keys are under REDIS_PREFIX itself: the target's prefix without the hash tag
  // a cluster adds (REDIS_PREFIX may not hold braces).
  const sourcePrefix = values['from-prefix'] ?? targetPrefix.replace(/^\{(.*)\}$/, '$1');
  if (values.from === config.redis.target && sourcePrefix === targetPrefix)
    throw new StartupError(`the source and the target are one store (${sourcePrefix} on ${values.from})`);

  const source = (await connected(
    createRedis(values.from, 'worker', { connectionName: 'reversi-arena-migrate' }),
  )) as Redis;
  const target = await connected(createRedis(config.redis.target, 'worker'));
  try {
    await refuseWhileInUse(source);
    const from = `${sourcePrefix}: on ${describeTarget(values.from)}`;
    const to = `${targetPrefix}: on ${describeTarget(config.redis.target)}`;
    console.log(`copying the keys under ${from} to ${to}`);
    const copy = await copyStore({
      source,
      sourcePrefix,
      target,
      targetPrefix,
      onBatch: ({ copied }) => console.log(`${copied} keys copied`),
    });
    console.log(
      copy.started === 'already done'
        ? `already done: ${copy.copied} keys were copied by an earlier run (${migrationKey(targetPrefix)})`
        : `done: ${copy.copied} keys copied${copy.started === 'resumed' ? ' (resumed)' : ''}`,
    );
  } finally {
    source.disconnect();
    target.disconnect();
  }
}

/**
 * The arena's processes name their connections `reversi-arena-…`: while one is connected to the
 * old server it may still write there, and what it writes after its key was copied would be lost.
 */
async function refuseWhileInUse(source: Redis): Promise<void> {
  const clients = (await source.client('LIST')) as string;
  const arenas = clients.split('\n').filter((line) => /\bname=reversi-arena-(api|worker)\b/.test(line));
  if (arenas.length > 0)
    throw new StartupError(
      `${arenas.length} arena connection(s) are open on the old server: stop its API and workers first`,
    );
}

main().catch((error: unknown) => {
  if (error instanceof StartupError || error instanceof StoreCopyRefused) console.error(error.message);
  else console.error('migration failed:', error);
  process.exit(1);
});
