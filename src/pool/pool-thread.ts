/**
 * The entry of a match pool thread (see ./threads.ts): a pool of match workers of its own
 * (`startMatchPool`), with its own Redis connections, bot client and event loop, playing its share
 * of the process' matches until the process' thread tells it to close.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { loggerOptions } from '../support/logger.ts';
import { StartupError } from '../support/startup-error.ts';
import { cpuWaitMeter } from './cpu-wait.ts';
import { startMatchPool } from './match-pool.ts';
import { LOOP_SAMPLE_MS, type PoolCommand, type PoolReport, type PoolThreadData } from './pool-threads.ts';

const port = parentPort;
if (port === null) throw new Error('pool/thread.ts runs as a worker thread, not as a program');
const report = (message: PoolReport) => port.postMessage(message);

const { config, matchmaking, pretty } = workerData as PoolThreadData;
// Written at once: a thread logs little, and what it buffered would be lost when it is ended (a
// terminated thread runs no exit handlers) or dies.
const logger = (
  pretty
    ? pino(loggerOptions(config, true))
    : pino(loggerOptions(config, false), pino.destination({ sync: true }))
).child({ thread: threadId });
// Always on: a libuv timer every 10 ms, which costs nothing next to the matches' own timers.
const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
loop.enable();
const cpuWait = cpuWaitMeter();

const pool = await startMatchPool(config, logger, { matchmaking }).catch((error: unknown) => {
  // Said in words, for the process to print as its own thread would: a thrown error reaches it
  // as a plain Error, its class lost.
  if (error instanceof StartupError) {
    report({ type: 'start-failed', message: error.message });
    process.exit(1);
  }
  throw error;
});
port.on('message', async (command: PoolCommand) => {
  if (command.type === 'loop-delay') {
    const cpuWaitShare = cpuWait();
    report({
      type: 'loop-delay',
      threadId,
      p99Ms: loop.percentile(99) / 1e6,
      maxMs: loop.max / 1e6,
      cpuWaitShare,
    });
    loop.reset();
    return;
  }
  loop.disable();
  await pool.close();
  report({ type: 'closed' });
});
report({ type: 'started' });
