/**
 * npm run sim:ladder [-- --matches 400 --seconds 300 --openings both|paired|standard --runs 1]
 *
 * Bots of known strength (random, greedy, alpha-beta at depths 1 and 3) play each other through the
 * real scheduler, queue, workers and HTTP bot client, on Redis under a throwaway prefix. The true
 * strength order comes from a round robin played directly with the rules engine beforehand. Prints,
 * as matches accumulate, whether the leaderboard's Elo order and its Bradley–Terry order equal the
 * true order, and at the end after how many matches each first matched it and matched it for good.
 *
 * `--openings` picks the matchmaking: `paired` (MATCHMAKING_OPENINGS=balanced, the arena's default:
 * each pairing two matches from one random balanced opening, colours swapped), `standard` (one
 * match a pairing from the start position), or `both` (the default): one run of each, under
 * prefixes of their own, then a table comparing them. `--runs N` repeats each (alternating the
 * modes) and adds each mode's median: one run is one draw of a noisy number.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { type BotKind, chooser, playGame, seededRandom, startBot } from '../examples/bots/index.ts';
import { BotService } from '../src/arena/bots.ts';
import { loadConfig } from '../src/config.ts';
import { createRedis } from '../src/connections/redis-connection.ts';
import { startMatchPool } from '../src/pool/match-pool.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { redisStores } from '../src/redis/redis-stores.ts';
import { DEFAULT_RULES } from '../src/reversi/index.ts';
import { systemClock } from '../src/support/clock.ts';

const { values } = parseArgs({
  options: {
    matches: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '300' },
    openings: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '1' },
  },
});
const runCount = Math.max(1, Number(values.runs));
const maxMatches = Number(values.matches);
const maxSeconds = Number(values.seconds);
const MODES = { paired: 'balanced', standard: 'standard' } as const;
type Mode = keyof typeof MODES;
const modes: Mode[] =
  values.openings === 'both' ? ['standard', 'paired'] : [values.openings as Mode].filter((m) => m in MODES);
if (modes.length === 0) {
  console.error(`--openings must be paired, standard or both, not ${values.openings}`);
  process.exit(2);
}

/** What one run found: after how many matches each order first equalled the true one, and for good. */
interface RunSummary {
  readonly mode: Mode;
  readonly finished: number;
  readonly seconds: number;
  readonly firstAt: Record<'elo' | 'bt', number | null>;
  readonly stableFrom: Record<'elo' | 'bt', number | null>;
}

const ROSTER: { name: string; kind: BotKind; depth?: number }[] = [
  { name: 'random', kind: 'random' },
  { name: 'greedy', kind: 'greedy' },
  { name: 'alphabeta-1', kind: 'alphabeta', depth: 1 },
  { name: 'alphabeta-3', kind: 'alphabeta', depth: 3 },
];

/** The true order: a round robin with the engine alone, 20 games per ordered pair. */
function trueScores(): Map<string, number> {
  const scores = new Map(ROSTER.map((bot) => [bot.name, 0]));
  const random = seededRandom(42);
  for (const a of ROSTER) {
    for (const b of ROSTER) {
      if (a === b) continue;
      for (let game = 0; game < 20; game++) {
        const result = playGame(
          {
            black: chooser(a.kind, { depth: a.depth, random }),
            white: chooser(b.kind, { depth: b.depth, random }),
          },
          { ...DEFAULT_RULES, firstPlayer: 'black' },
        );
        const blackScore = result.winner === 'black' ? 1 : result.winner === null ? 0.5 : 0;
        scores.set(a.name, (scores.get(a.name) ?? 0) + blackScore);
        scores.set(b.name, (scores.get(b.name) ?? 0) + 1 - blackScore);
      }
    }
  }
  return scores;
}

/** True when `order` (best first) never ranks a truly weaker bot above a truly stronger one. */
function agrees(order: readonly string[], truth: Map<string, number>): boolean {
  if (order.length < ROSTER.length) return false;
  for (let i = 0; i < order.length; i++) {
    for (let j = i + 1; j < order.length; j++) {
      if ((truth.get(order[i]!) ?? 0) < (truth.get(order[j]!) ?? 0)) return false;
    }
  }
  return true;
}

async function main(): Promise<void> {
  const truth = trueScores();
  console.log('true strength (round-robin points):', Object.fromEntries(truth));
  const runs: RunSummary[] = [];
  for (let run = 0; run < runCount; run++) {
    for (const mode of modes) {
      if (modes.length > 1 || runCount > 1) {
        console.log(`\n--openings ${mode} (MATCHMAKING_OPENINGS=${MODES[mode]}), run ${run + 1}`);
      }
      runs.push(await simulate(mode, truth));
    }
  }
  if (runs.length > 1) printComparison(runs);
}

/** The median of the runs' counts, a run that never got there counting as the longest. */
function median(counts: readonly (number | null)[]): string {
  const sorted = counts.map((n) => n ?? Number.POSITIVE_INFINITY).sort((x, y) => x - y);
  const middle =
    sorted.length % 2 === 1
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return Number.isFinite(middle) ? String(middle) : 'never';
}

/** One line a run, then each mode's medians: matches until the order first equals the truth, and for good. */
function printComparison(runs: readonly RunSummary[]): void {
  console.log('\nmatches until the order equals the true one (first / for good):');
  console.log(`${'openings'.padEnd(17)}${'Elo'.padEnd(15)}${'Bradley-Terry'.padEnd(15)}(matches played)`);
  const cell = (first: string, stable: string) => `${first} / ${stable}`.padEnd(15);
  const show = (n: number | null) => (n === null ? 'never' : String(n));
  for (const run of runs) {
    const elo = cell(show(run.firstAt.elo), show(run.stableFrom.elo));
    const bt = cell(show(run.firstAt.bt), show(run.stableFrom.bt));
    console.log(`${run.mode.padEnd(17)}${elo}${bt}(${run.finished} in ${run.seconds} s)`);
  }
  if (runCount === 1) return;
  for (const mode of modes) {
    const of = runs.filter((run) => run.mode === mode);
    const elo = cell(median(of.map((r) => r.firstAt.elo)), median(of.map((r) => r.stableFrom.elo)));
    const bt = cell(median(of.map((r) => r.firstAt.bt)), median(of.map((r) => r.stableFrom.bt)));
    console.log(`${`${mode}, median`.padEnd(17)}${elo}${bt}(of ${of.length} runs)`);
  }
}

/** One ladder under `mode`'s matchmaking, on a throwaway prefix; prints as it goes. */
async function simulate(mode: Mode, truth: Map<string, number>): Promise<RunSummary> {
  const prefix = `sim-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    REDIS_PREFIX: prefix,
    ARENA_ALLOW_PRIVATE_BOT_URLS: 'true',
    MATCHMAKING_ENABLED: 'true',
    MATCHMAKING_OPENINGS: MODES[mode],
    MATCHMAKING_INTERVAL_MS: '300',
    MATCHMAKING_MAX_CONCURRENT_PER_BOT: '2',
    // Every bot of the ladder is served on this machine.
    ALLOW_SAME_OPERATOR_GAMES: 'true',
    STRENGTH_INTERVAL_MS: '500',
    TIME_LIMIT_MS_DEFAULT: '5000',
    WORKER_CONCURRENCY: '6',
    LOG_LEVEL: 'warn',
  });
  const redis = createRedis(config.redis.url, 'worker');
  await redis.connect();
  const stores = redisStores(redis, prefix);
  const bots = new BotService({
    stores,
    clock: systemClock,
    random: (size) => randomBytes(size),
    startingRating: config.rating.start,
    allowPrivateBotUrls: true,
  });
  const running = [];
  const names = new Map<string, string>();
  for (const entry of ROSTER) {
    const server = await startBot(entry.kind, { port: 0, depth: entry.depth });
    running.push(server);
    const { bot } = await bots.register({ name: entry.name, url: server.url });
    names.set(bot.id, entry.name);
  }
  const workers = await startMatchPool(config, pino({ level: 'warn' }));
  const started = performance.now();
  const firstAt: Record<'elo' | 'bt', number | null> = { elo: null, bt: null };
  const stableFrom: Record<'elo' | 'bt', number | null> = { elo: null, bt: null };
  let finished = 0;
  let lastPrinted = -1;
  while (finished < maxMatches && performance.now() - started < maxSeconds * 1000) {
    await new Promise((done) => setTimeout(done, 500));
    finished = (await stores.matches.matchIdsInStatus('finished', 100_000)).length;
    const board = await stores.ratings.leaderboard(0, 100);
    const eloOrder = board.rows.map((row) => names.get(row.bot.id) ?? '?');
    const btOrder = [...board.rows]
      .filter((row) => row.strength !== null)
      .sort((x, y) => y.strength!.rating - x.strength!.rating)
      .map((row) => names.get(row.bot.id) ?? '?');
    for (const [kind, order] of [
      ['elo', eloOrder],
      ['bt', btOrder],
    ] as const) {
      if (agrees(order, truth)) {
        firstAt[kind] ??= finished;
        stableFrom[kind] ??= finished;
      } else {
        stableFrom[kind] = null;
      }
    }
    if (finished >= lastPrinted + 25) {
      lastPrinted = finished;
      console.log(`${finished} matches  Elo: ${eloOrder.join(' > ')}  BT: ${btOrder.join(' > ')}`);
    }
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(`\nafter ${finished} matches in ${seconds} s:`);
  for (const kind of ['elo', 'bt'] as const) {
    const label = kind === 'elo' ? 'Elo          ' : 'Bradley-Terry';
    console.log(
      `${label}: first equal to the true order after ${firstAt[kind] ?? 'never'} matches; equal from ${stableFrom[kind] ?? 'never (not at the end)'} on`,
    );
  }
  await workers.scheduler.queue.obliterate({ force: true });
  await workers.close();
  await Promise.all(running.map((bot) => bot.close()));
  await deleteKeysUnder(redis, prefix);
  await stores.close();
  await redis.quit();
  return { mode, finished, seconds, firstAt, stableFrom };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
