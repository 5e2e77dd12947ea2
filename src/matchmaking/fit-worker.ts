/**
 * The entry of the worker thread that recomputes Bradley–Terry strengths (see ./fit-thread.ts):
 * one request in, one summary out, then the thread ends. The thread is a small composition root of
 * its own: it opens a store on a connection of its own, since it cannot use the process' sockets.
 */
import { parentPort, threadId } from 'node:worker_threads';
import type { Strength } from '../model/records.ts';
import { bradleyTerryFromColumns } from '../rating/bradley-terry.ts';
import { RedisStrengthStore } from '../redis/redis-strength-store.ts';
import type { FitOptions, FitReply, FitRequest, FitSummary } from './fit-thread.ts';

/**
 * Reads the tallies, anchors the fit to the mean Elo of the bots it rates, starts it from the last
 * saved strengths and saves the new ones.
 */
async function recompute(
  store: RedisStrengthStore,
  computedAt: number,
  options: FitOptions,
): Promise<FitSummary> {
  const tallies = await store.ratedTallies();
  const [elo, start] = await Promise.all([store.botRatings(tallies.ids), store.savedRatings()]);
  const ratings = elo.filter((rating) => rating !== null);
  const anchorMean = ratings.length > 0 ? ratings.reduce((sum, r) => sum + r, 0) / ratings.length : 1500;
  const fit = bradleyTerryFromColumns(tallies, { ...options, anchorMean, start });
  const strengths = new Map<string, Strength>(
    fit.ratings.map((r) => [r.id, { rating: r.rating, lower: r.lower, upper: r.upper }]),
  );
  await store.saveStrengths(strengths, computedAt);
  return {
    rated: strengths.size,
    iterations: fit.iterations,
    converged: fit.converged,
    started: fit.ratings.filter((r) => start.has(r.id)).length,
  };
}

const port = parentPort;
if (port === null) throw new Error('fit-worker.ts runs as a worker thread, not as a program');
port.once('message', async ({ redis, computedAt, options = {} }: FitRequest) => {
  let reply: FitReply;
  let store: RedisStrengthStore | undefined;
  try {
    store = await RedisStrengthStore.open(redis.target, redis.prefix);
    reply = { ok: true, summary: await recompute(store, computedAt, options), threadId };
  } catch (error) {
    reply =
      error instanceof Error
        ? { ok: false, name: error.name, message: error.message }
        : { ok: false, name: 'Error', message: String(error) };
  } finally {
    await store?.close();
  }
  port.postMessage(reply);
});
