/**
 * The servers of `npm run bench:api`, one per child process so that neither shares an event loop
 * with the load generator or with the other:
 * - `real`: the arena's API as `npm start` serves it (startApi, createHttpServer, production
 *   logging at `info` written synchronously to /dev/null, response validation off, rate limits
 *   raised so the bench never meets a 429), on a throwaway key prefix it seeds itself: a few bots,
 *   one finished rated match between house bots (moves recorded), and one running match between
 *   two pull bots;
 * - `bare`: a hello-world express handler, the yardstick.
 * Each prints one JSON line on stdout when it listens (`{ port, ... }`) and closes on SIGTERM.
 */

import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import express from 'express';
import { pino } from 'pino';
import { BotService } from '../src/arena/bots.ts';
import { MatchService } from '../src/arena/matches.ts';
import { loadConfig } from '../src/config.ts';
import { createHttpServer } from '../src/http/server.ts';
import { eloRule } from '../src/model/rating-rule.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { playersFor } from '../src/runner/players.ts';
import { MatchRunner } from '../src/runner/runner.ts';
import type { Stores } from '../src/store/store.ts';
import { systemClock } from '../src/support/clock.ts';
import { createLogger } from '../src/support/logger.ts';
import { secureRandomBytes } from '../src/support/random.ts';
import { startApi } from '../src/wiring/api-process.ts';

const { values } = parseArgs({
  options: { serve: { type: 'string' }, bots: { type: 'string', default: '30' } },
});

function announce(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(fields)}\n`);
}

async function serveBare(): Promise<void> {
  const app = express();
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    announce({ port: (server.address() as AddressInfo).port });
  });
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

/** Registers `count` pull bots and plays rated matches between house bots, so ratings differ. */
async function seed(stores: Stores, count: number, config: ReturnType<typeof loadConfig>) {
  const bots = new BotService({
    stores,
    clock: systemClock,
    random: secureRandomBytes,
    startingRating: config.rating.start,
    allowPrivateBotUrls: true,
  });
  const pullBots: string[] = [];
  for (let i = 0; i < count; i++) {
    const { bot } = await bots.register({ name: `bench-bot-${i}` });
    pullBots.push(bot.id);
  }
  const matches = new MatchService({
    stores,
    queue: {
      enqueue: async () => {},
      promoteChallenges: async () => 0,
      expireChallengeLater: async () => {},
      prometheusMetrics: async () => '',
      close: async () => {},
    },
    clock: systemClock,
    random: secureRandomBytes,
    limits: config.limits,
  });
  const house = (await stores.bots.activeBots()).filter((bot) => bot.house !== null);
  const [greedy, other] = house;
  if (!greedy || !other) throw new Error('the bench needs two house bots');
  const runner = new MatchRunner({
    stores,
    clock: systemClock,
    playerFor: playersFor(null as never, () => {
      throw new Error('no pull bots play here');
    }),
    rate: eloRule(config.rating),
    logger: pino({ level: 'silent' }),
    announceStart: async () => {},
  });
  let finishedMatchId = '';
  for (let i = 0; i < 3; i++) {
    const match = await matches.create({ kind: 'admin' }, { black: greedy.id, white: other.id, rated: true });
    await runner.play(match.id, new AbortController().signal);
    finishedMatchId = match.id;
  }
  const [black = '', white = ''] = pullBots;
  const running = await matches.create({ kind: 'admin' }, { black, white, rated: false });
  await stores.matches.startMatch(running.id, systemClock.now());
  return { finishedMatchId, runningMatchId: running.id };
}

async function serveReal(): Promise<void> {
  const prefix = `bench-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'info',
    OPENAPI_VALIDATE_RESPONSES: 'false',
    RATE_LIMIT_PER_IP: '1000000000',
    RATE_LIMIT_PER_TOKEN: '1000000000',
    RATE_LIMIT_REGISTRATIONS_PER_HOUR: '1000000',
    MATCHMAKING_ENABLED: 'false',
    HOUSE_BOTS: 'true',
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
  });
  // Production logging (JSON lines at `info`, as `npm start` writes them to stdout), to a sink.
  const logger = createLogger(config, '/dev/null');
  const api = await startApi(config, logger, () => false);
  const seeded = await seed(api.stores, Number(values.bots), config);
  const server = createHttpServer(api.app, config.http, logger);
  server.listen(0, '127.0.0.1', () => {
    announce({ port: (server.address() as AddressInfo).port, ...seeded });
  });
  process.once('SIGTERM', async () => {
    server.closeAllConnections();
    server.close();
    await deleteKeysUnder(api.redis, prefix);
    await api.close();
    process.exit(0);
  });
}

if (values.serve === 'bare') await serveBare();
else if (values.serve === 'real') await serveReal();
else throw new Error('--serve bare|real');
