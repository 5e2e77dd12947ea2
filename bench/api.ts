/**
 * npm run bench:api [-- --seconds S --rounds R --connections C]
 *
 * The read path against a bare express handler, side by side: starts the arena's API as production
 * serves it (bench/api-server.ts --serve real, on Redis at REDIS_URL under a throwaway prefix) and a
 * hello-world express server (--serve bare), each in a child process of its own, then drives
 * `GET /v1/leaderboard`, `GET /v1/matches/{id}` (a finished match with its moves),
 * `GET /v1/matches/{id}/state` (a running match) and the bare route with autocannon for S seconds
 * each, alternating, R rounds. A shared machine's speed drifts, so each endpoint's ratio is taken
 * against the bare run just before it, and the summary is the median round. The same ratio is also
 * taken by each server's CPU time per request (from /proc), which the load generator, on the same
 * cores, blurs less. Prints the machine's load, a table, and one JSON line last.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { processCpuMicros } from './process-cpu.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const TARGET_RATIO = 0.7;

interface Started {
  readonly child: ChildProcess;
  readonly info: { port: number; finishedMatchId?: string; runningMatchId?: string };
}

async function startServer(kind: 'real' | 'bare'): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./api-server.ts', import.meta.url)), '--serve', kind],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the ${kind} server exited with ${code} before listening`);
  });
  const [line] = (await Promise.race([once(lines, 'line'), exited])) as [string];
  return { child, info: JSON.parse(line) };
}

async function load(
  url: string,
  server: ChildProcess,
): Promise<{ rps: number; errors: number; non2xx: number; p99: number; cpuUs: number }> {
  const cpuBefore = processCpuMicros(server.pid);
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  return {
    cpuUs: (processCpuMicros(server.pid) - cpuBefore) / result.requests.total,
    rps: result.requests.average,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    p99: result.latency.p99,
  };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const [real, bare] = await Promise.all([startServer('real'), startServer('bare')]);
try {
  const { port, finishedMatchId, runningMatchId } = real.info;
  const origin = `http://127.0.0.1:${port}`;
  const endpoints = {
    leaderboard: `${origin}/v1/leaderboard`,
    match: `${origin}/v1/matches/${finishedMatchId}`,
    state: `${origin}/v1/matches/${runningMatchId}/state`,
  } as const;
  const bareUrl = `http://127.0.0.1:${bare.info.port}/hello`;
  // Warm both servers' JIT before measuring.
  for (const url of [bareUrl, ...Object.values(endpoints)]) {
    await autocannon({ url, connections, duration: 1 });
  }
  const loadBefore = loadavg();
  const ratios: Record<keyof typeof endpoints, number[]> = { leaderboard: [], match: [], state: [] };
  const rates: Record<keyof typeof endpoints | 'bare', number[]> = {
    leaderboard: [],
    match: [],
    state: [],
    bare: [],
  };
  // The same comparison by the servers' CPU per request: bare's over the endpoint's.
  const cpuRatios: Record<keyof typeof endpoints, number[]> = { leaderboard: [], match: [], state: [] };
  const cpu: Record<keyof typeof endpoints | 'bare', number[]> = {
    leaderboard: [],
    match: [],
    state: [],
    bare: [],
  };
  for (let round = 1; round <= rounds; round++) {
    for (const [name, url] of Object.entries(endpoints) as [keyof typeof endpoints, string][]) {
      const yardstick = await load(bareUrl, bare.child);
      const measured = await load(url, real.child);
      if (measured.errors > 0 || measured.non2xx > 0) {
        throw new Error(`${name}: ${measured.errors} errors and ${measured.non2xx} non-2xx answers`);
      }
      rates.bare.push(yardstick.rps);
      rates[name].push(measured.rps);
      ratios[name].push(measured.rps / yardstick.rps);
      cpuRatios[name].push(yardstick.cpuUs / measured.cpuUs);
      cpu[name].push(measured.cpuUs);
      cpu.bare.push(yardstick.cpuUs);
      console.log(
        `round ${round} ${name.padEnd(11)} ${measured.rps.toFixed(0).padStart(6)} req/s (p99 ${measured.p99} ms, ${measured.cpuUs.toFixed(0)} µs CPU)` +
          `  bare ${yardstick.rps.toFixed(0).padStart(6)} req/s (${yardstick.cpuUs.toFixed(0)} µs CPU)` +
          `  ratio ${(measured.rps / yardstick.rps).toFixed(2)}, by CPU ${(yardstick.cpuUs / measured.cpuUs).toFixed(2)}`,
      );
    }
  }
  const loadAfter = loadavg();
  const summary = {
    bench: 'api',
    connections,
    seconds,
    rounds,
    loadavg1: { before: Number(loadBefore[0]?.toFixed(2)), after: Number(loadAfter[0]?.toFixed(2)) },
    bareRps: Math.round(median(rates.bare)),
    leaderboardRps: Math.round(median(rates.leaderboard)),
    matchRps: Math.round(median(rates.match)),
    stateRps: Math.round(median(rates.state)),
    leaderboardRatio: Number(median(ratios.leaderboard).toFixed(3)),
    matchRatio: Number(median(ratios.match).toFixed(3)),
    stateRatio: Number(median(ratios.state).toFixed(3)),
    cpuUsPerRequest: {
      bare: Math.round(median(cpu.bare)),
      leaderboard: Math.round(median(cpu.leaderboard)),
      match: Math.round(median(cpu.match)),
      state: Math.round(median(cpu.state)),
    },
    cpuRatios: {
      leaderboard: Number(median(cpuRatios.leaderboard).toFixed(3)),
      match: Number(median(cpuRatios.match).toFixed(3)),
      state: Number(median(cpuRatios.state).toFixed(3)),
    },
    target: TARGET_RATIO,
  };
  const pass = [summary.leaderboardRatio, summary.matchRatio, summary.stateRatio].every(
    (r) => r >= TARGET_RATIO,
  );
  console.log(
    `load average ${summary.loadavg1.before} → ${summary.loadavg1.after}; median ratios: leaderboard ${summary.leaderboardRatio}, match ${summary.matchRatio}, state ${summary.stateRatio} (target ≥ ${TARGET_RATIO})`,
  );
  console.log(JSON.stringify({ ...summary, pass }));
} finally {
  for (const { child } of [real, bare]) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
}
