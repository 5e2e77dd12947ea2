/**
 * npm run bench:streams [-- --streams N] [--rate R] [--open-rate O] [--warmup W] [--profile FILE]
 *
 * One API process (started here, in-process) on a private redis-server of the bench's own, with N
 * pull bots each holding an event stream and a long poll (the clients run in a child process, so
 * the API's memory is measured alone). Then the worker's side of a turn is played for the first
 * mover of every match (the turn opened, its `yourTurn` appended, as PullPlayer does), R turns a
 * second, from a process of its own as a worker's would be; the time from that write to the bot's
 * stream event and to its long poll's answer is the wake-up latency.
 *
 * W more bots (W/2 matches) hold their waits beside the N and are woken first, as a warm-up: the
 * API's code for a wake-up runs for the first time there, compiled as it goes. Their figures are
 * printed apart (`warmupWakeupMs`), not mixed into the measured ones.
 *
 * The clients open their waits at a steady O a second (a stream and a long poll per bot), as
 * bots arriving would, not all at once past the listen backlog; the bench reports how many of each
 * the API held.
 *
 * Prints, as one JSON line last: Redis connections during the waits (every client of the private
 * server but the bench's own), wake-up p50/p99 for streams and long polls, the rate the turns were
 * opened at, the API's CPU time per turn (its process' whole CPU over the measured turns), the
 * commands Redis ran per turn (all, and XREADs), and the API's memory per open wait (heap and RSS
 * growth, after GC, over every stream and long poll).
 */

import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pino } from 'pino';
import { loadConfig, type RedisTarget } from '../src/config.ts';
import {
  connected,
  createRedis,
  primariesOf,
  type RedisClient,
} from '../src/connections/redis-connection.ts';
import type { MatchState } from '../src/contract/index.ts';
import { createHttpServer } from '../src/http/server.ts';
import { RedisPullStore } from '../src/redis/redis-pull-store.ts';
import { startApi } from '../src/wiring/api-process.ts';
import { benchRedis, clientLines } from './bench-redis.ts';
import { percentile } from './percentile.ts';

interface Bot {
  readonly id: string;
  readonly token: string;
  readonly matchId: string;
  /** Whether its turn is the one the bench opens: the match's first (see `openFirstTurns`). */
  readonly movesFirst: boolean;
  /** The match's state as its first mover reads it: what the opener's `yourTurn` carries. */
  readonly firstState: string;
}
/** What the client process reports: a stream's event or a long poll's answer, and when. */
interface Woken {
  readonly kind: 'stream' | 'poll';
  readonly botId: string;
  readonly at: number;
}

const LONG_POLL_MS = 30_000;
const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      streams: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '1000' },
      'open-rate': { type: 'string', default: '500' },
      warmup: { type: 'string', default: '100' },
      profile: { type: 'string' },
      clients: { type: 'boolean' },
      opener: { type: 'boolean' },
    },
  });
  // Whole matches: bots are paired two by two.
  const n = 2 * Math.round(Number(values.streams) / 2);
  const warm = 2 * Math.round(Number(values.warmup) / 2);
  const rate = Number(values.rate);
  const openRate = Number(values['open-rate']);
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const server = await benchRedis({ prefix: 'bench' });
  const config = loadConfig({
    ...server.env,
    REDIS_PREFIX: 'bench',
    ADMIN_TOKEN: 'bench-admin-token-0123456789',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REGISTRATIONS_PER_HOUR: '1000000',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_TOKEN: '100000000',
    MAX_CONNECTIONS_PER_ADDRESS: '100000',
    MATCHMAKING_ENABLED: 'false',
    HOUSE_BOTS: 'false',
  });
  const admin = await connected(
    createRedis(config.redis.target, 'worker', { connectionName: 'bench-admin' }),
  );
  const api = await startApi(config, pino({ level: 'warn' }), () => false);
  // Served as `npm start` serves it: the connection limits and timeouts of createHttpServer.
  const http = createHttpServer(api.app, config.http, pino({ level: 'warn' })).listen(0, '127.0.0.1');
  await once(http, 'listening');
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  let clients: ChildProcess | undefined;
  let opener: ChildProcess | undefined;
  try {
    const bots = await setUp(origin, config.adminToken ?? '', n + warm);
    gc();
    const before = process.memoryUsage();

    clients = forkSelf('--clients');
    const woken: Woken[] = [];
    let opened: Held | undefined;
    clients.on('message', (message: Woken[] | Held) => {
      if (Array.isArray(message)) woken.push(...message);
      else opened = message;
    });
    const openingStarted = performance.now();
    clients.send({ origin, bots, openRate });
    // Every stream's headers came (or it failed), every long poll is sent; then wait until all
    // that opened hold their leases.
    while (opened === undefined) await pause(50);
    const openingSeconds = (performance.now() - openingStarted) / 1000;
    const leases = async () => {
      const counts = await Promise.all(
        bots.map((bot) => admin.zcard(`${config.redis.prefix}:bot:${bot.id}:streams`)),
      );
      return counts.reduce((sum, count) => sum + count, 0);
    };
    const leasesDeadline = Date.now() + 30_000;
    while ((await leases()) < opened.streams + opened.polls && Date.now() < leasesDeadline) await pause(200);
    await pause(500);
    gc();
    const during = process.memoryUsage();
    const list = await clientLines(admin);
    const others = list.filter((line) => !line.includes('name=bench-admin'));
    const connectionNames = others.map((line) => /name=(\S*)/.exec(line)?.[1] ?? '');

    // The worker's side of each first turn.
    opener = forkSelf('--opener');
    const started = new Map<string, number>();
    opener.on('message', (batch: Opened[]) => {
      for (const { botId, at } of batch) started.set(botId, at);
    });
    const openFirstTurns = async (players: readonly Bot[]) => {
      const movers = players.filter((bot) => bot.movesFirst);
      const cpuBefore = process.cpuUsage();
      opener?.send({ target: config.redis.target, prefix: config.redis.prefix, movers, rate });
      const ids = new Set(movers.map((bot) => bot.id));
      const deadline = Date.now() + 20_000;
      // Both sides report in batches: every turn's opening and both its wake-ups are in.
      const done = () =>
        movers.every((bot) => started.has(bot.id)) &&
        woken.filter((w) => ids.has(w.botId)).length >= 2 * ids.size;
      while (!done() && Date.now() < deadline) await pause(50);
      const cpu = process.cpuUsage(cpuBefore);
      const opened = movers.map((bot) => started.get(bot.id) ?? Number.NaN);
      const latency = (kind: Woken['kind']) =>
        woken
          .filter((w) => w.kind === kind && ids.has(w.botId))
          .map((w) => w.at - (started.get(w.botId) ?? Number.NaN))
          .sort((a, b) => a - b);
      const span = (Math.max(...opened) - Math.min(...opened)) / 1000;
      return {
        movers: movers.length,
        turnsPerSecond: Math.round((movers.length - 1) / span),
        // The API's CPU time (this process: the bench's own share is a few polls of an array).
        apiCpuMsPerTurn: Math.round((cpu.user + cpu.system) / movers.length) / 1000,
        stream: latency('stream'),
        poll: latency('poll'),
      };
    };
    const warmup = await openFirstTurns(bots.slice(n));
    await pause(500);
    const profiler = values.profile ? await startProfile() : undefined;
    const callsBefore = await commandCalls(admin);
    const measured = await openFirstTurns(bots.slice(0, n));
    const callsAfter = await commandCalls(admin);
    const perTurn = (command: string) =>
      Math.round(
        (((callsAfter.get(command) ?? 0) - (callsBefore.get(command) ?? 0)) / measured.movers) * 100,
      ) / 100;
    if (profiler && values.profile) await profiler.stop(values.profile);
    const { stream: streams, poll: polls } = measured;
    const all = [...streams, ...polls].sort((a, b) => a - b);
    const warmAll = [...warmup.stream, ...warmup.poll].sort((a, b) => a - b);
    const waits = opened.streams + opened.polls;
    console.log(
      JSON.stringify({
        streams: n,
        longPolls: n,
        warmupBots: warm,
        opening: {
          askedPerSecond: openRate,
          seconds: Math.round(openingSeconds * 10) / 10,
          held: { streams: opened.streams, longPolls: opened.polls },
          failed: opened.failed,
        },
        redisConnections: others.length,
        connectionNames: [...new Set(connectionNames)],
        turnsPerSecond: { asked: rate, opened: measured.turnsPerSecond },
        apiCpuMsPerTurn: measured.apiCpuMsPerTurn,
        // Commands Redis ran per turn, the opener's included (its script and the turn's reads).
        redisCommandsPerTurn: { all: perTurn('all'), xread: perTurn('xread') },
        wakeups: { stream: streams.length, longPoll: polls.length, expected: 2 * measured.movers },
        wakeupMs: {
          stream: { p50: percentile(streams, 50), p99: percentile(streams, 99) },
          longPoll: { p50: percentile(polls, 50), p99: percentile(polls, 99) },
          all: { p50: percentile(all, 50), p99: percentile(all, 99), max: round(all.at(-1) ?? Number.NaN) },
        },
        warmupWakeupMs: { turns: warmup.movers, p50: percentile(warmAll, 50), p99: percentile(warmAll, 99) },
        bytesPerWait: {
          heap: Math.round((during.heapUsed - before.heapUsed) / waits),
          rss: Math.round((during.rss - before.rss) / waits),
        },
      }),
    );
  } finally {
    // The clients go first: their waits end as their sockets close, before Redis does.
    clients?.kill();
    opener?.kill();
    await pause(1000);
    http.closeAllConnections();
    http.close();
    await api.close();
    admin.disconnect();
    await server.stop();
  }
}

/** How many times Redis (every primary of a cluster) has run each command (`INFO commandstats`), and `all` of them. */
async function commandCalls(admin: RedisClient): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const server of primariesOf(admin)) {
    for (const [, command, count] of (await server.info('commandstats')).matchAll(
      /^cmdstat_([^:]+):calls=(\d+)/gm,
    )) {
      calls.set(command as string, (calls.get(command as string) ?? 0) + Number(count));
      calls.set('all', (calls.get('all') ?? 0) + Number(count));
    }
  }
  return calls;
}

/**
 * A V8 CPU profile of the API's process (`--profile FILE`), over the measured turns alone: the
 * set-up, the warm-up and the clients' hang-ups at the end stay out of it.
 */
async function startProfile(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** This script again, in a child process, as the part `role` names. */
function forkSelf(role: '--clients' | '--opener'): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [role], { execArgv: ['--import', 'tsx'] });
}

/** Registers n pull bots and pairs them in n/2 queued matches (no worker plays them). */
async function setUp(origin: string, adminToken: string, n: number): Promise<Bot[]> {
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const registered: { id: string; token: string }[] = [];
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) => `bench-${i + j}`);
    const bots = await Promise.all(batch.map((name) => post('/v1/bots', { name })));
    registered.push(...bots.map((bot) => ({ id: bot.id ?? '', token: bot.token ?? '' })));
  }
  const bots: Bot[] = [];
  for (let i = 0; i + 1 < registered.length; i += 2) {
    const [black, white] = [registered[i], registered[i + 1]];
    if (!black || !white) break;
    const match = await post('/v1/matches', { black: black.id, white: white.id }, adminToken);
    // Reversi's first move is white's (the arena's colours follow the WTHOR convention).
    const matchId = match.id ?? '';
    // A spectator's view of an unplayed match is its first mover's: `you` is the side to move.
    const firstState = await (await fetch(`${origin}/v1/matches/${matchId}/state`)).text();
    bots.push(
      { ...black, matchId, movesFirst: false, firstState },
      { ...white, matchId, movesFirst: true, firstState },
    );
  }
  return bots;
}

/** What the opener reports: the turn of `botId` was written at `at`. */
interface Opened {
  readonly botId: string;
  readonly at: number;
}

/**
 * The opener's process: for each batch of movers it is sent, plays the worker's side of each first
 * turn (the turn opened, its `yourTurn` appended, as PullPlayer does), `rate` a second, each on time
 * whatever the API's replies, and reports when it wrote each.
 */
async function runOpener(): Promise<void> {
  let pull: RedisPullStore | undefined;
  const report = batchedReports<Opened>();
  process.on(
    'message',
    async ({
      target,
      prefix,
      movers,
      rate,
    }: {
      target: RedisTarget;
      prefix: string;
      movers: Bot[];
      rate: number;
    }) => {
      pull ??= new RedisPullStore(createRedis(target, 'worker', { connectionName: 'bench-opener' }), prefix);
      const begun = performance.now();
      for (const [i, bot] of movers.entries()) {
        const due = begun + (i * 1000) / rate;
        if (due > performance.now() + 1) await pause(due - performance.now());
        report({ botId: bot.id, at: now() });
        const deadline = Date.now() + 60_000;
        void pull.openTurn(
          {
            matchId: bot.matchId,
            ply: 1,
            player: 'white',
            botId: bot.id,
            deadline,
            timeoutMs: 60_000,
            run: 'bench',
            ratings: { black: 1500, white: 1500 },
          },
          // The state the bot reads once its turn is open, as PullPlayer writes it.
          JSON.stringify({ ...JSON.parse(bot.firstState), deadline: new Date(deadline).toISOString() }),
        );
      }
    },
  );
  await new Promise(() => {});
}

/** What the clients opened: streams whose headers came with 200, long polls sent, and failures. */
interface Held {
  readonly streams: number;
  readonly polls: number;
  readonly failed: { readonly count: number; readonly first?: string };
}

/**
 * The child process: opens a stream and a long poll per bot, `openRate` bots a second, and reports
 * what it held once every stream has its headers or failed, then when each wait is woken.
 */
async function runClients(): Promise<void> {
  const [{ origin, bots, openRate }] = (await once(process, 'message')) as [
    { origin: string; bots: Bot[]; openRate: number },
  ];
  const { Agent, request } = await import('undici');
  const dispatcher = new Agent({ connections: null, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const report = batchedReports<Woken>();
  let streams = 0;
  let polls = 0;
  const failed: { count: number; first?: string } = { count: 0 };
  const fail = (error: unknown) => {
    failed.count++;
    failed.first ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  };
  const open = async (bot: Bot) => {
    const auth = { authorization: `Bearer ${bot.token}` };
    try {
      const stream = await request(`${origin}/v1/bots/me/events`, { headers: auth, dispatcher });
      if (stream.statusCode !== 200) throw new Error(`the stream answered ${stream.statusCode}`);
      streams++;
      stream.body.setEncoding('utf8');
      stream.body.on('error', () => {});
      stream.body.on('data', (chunk: string) => {
        if (chunk.includes('event: yourTurn')) report({ kind: 'stream', botId: bot.id, at: now() });
      });
    } catch (error) {
      fail(error);
      return;
    }
    polls++;
    // As a bot does, a poll answered at its deadline before the turn opened polls again: at a low
    // --rate the last turns come after the first polls' 30 s, and counting those answers as
    // wake-ups gave negative latencies. Only the bots whose turn comes poll again: the others'
    // polls would add to the API's cost per turn.
    const poll = (): void => {
      request(`${origin}/v1/matches/${bot.matchId}/state?waitMs=${LONG_POLL_MS}`, {
        headers: auth,
        dispatcher,
      })
        .then(async (res) => {
          if (res.statusCode !== 200) {
            fail(new Error(`a long poll answered ${res.statusCode}: ${await res.body.text()}`));
            return;
          }
          const state = (await res.body.json()) as Pick<MatchState, 'toMove' | 'you' | 'deadline'>;
          if (state.toMove === state.you && state.deadline !== null)
            report({ kind: 'poll', botId: bot.id, at: now() });
          else if (bot.movesFirst) poll();
        })
        .catch(fail);
    };
    poll();
  };
  const begun = performance.now();
  const opening: Promise<void>[] = [];
  for (const [i, bot] of bots.entries()) {
    const due = begun + (i * 1000) / openRate;
    if (due > performance.now() + 1) await pause(due - performance.now());
    opening.push(open(bot));
  }
  await Promise.all(opening);
  process.send?.({ streams, polls, failed } satisfies Held);
  await new Promise(() => {});
}

/**
 * Sends what a child reports to the bench's process in batches, every 20 ms: that process is the
 * API's too, and a message per report would charge the API the bench's own traffic. Each report
 * holds its own time, so the batching delays no figure.
 */
function batchedReports<Report>(): (report: Report) => void {
  let batch: Report[] = [];
  const flush = () => {
    process.send?.(batch);
    batch = [];
  };
  return (report) => {
    if (batch.length === 0) setTimeout(flush, 20);
    batch.push(report);
  };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const pause = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

if (process.argv.includes('--clients')) await runClients();
else if (process.argv.includes('--opener')) await runOpener();
else await main();
