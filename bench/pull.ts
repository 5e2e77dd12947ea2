/**
 * npm run bench:pull [-- --games N] [--time-limit MS] [--breakdown]
 *
 * What a pull ply costs the arena, measured from outside: a private redis-server, the API in a
 * child process of its own (`npm start`'s wiring, no workers) and a worker process (`npm run
 * worker`, one pool on its own thread); here, N pull bots (the example pull bot: its event stream,
 * one POST a turn) each play a match against one push bot (greedy, on loopback). MONITOR counts
 * every command Redis runs from the first match's creation to the last one's end (the bench's own
 * reads come after): the commands the arena's processes sent (a script is one), and with them the
 * commands their scripts ran. The API reports its CPU time and the 5xx answers it gave.
 *
 * Prints, as one JSON line last: plies played (all, and the pull bots' moves), Redis commands sent
 * per ply (and with the scripts' own), the API's CPU per pull move, and the 5xx count; `--breakdown` first lists the commands by
 * name, a ply's share of each (`lua:` for those a script ran).
 */

import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { chooseGreedy, runPullBot, startBot } from '../examples/bots/index.ts';
import { arenaEnv, forkApi, post, spawnWorker, stopProcesses } from './arena-processes.ts';
import { privateRedis } from './private-redis.ts';

const { values } = parseArgs({
  options: {
    games: { type: 'string', default: '8' },
    'time-limit': { type: 'string', default: '2000' },
    breakdown: { type: 'boolean', default: false },
  },
});

async function main(): Promise<void> {
  const games = Number(values.games);
  const timeLimitMs = Number(values['time-limit']);
  const redis = await privateRedis();
  const env = arenaEnv(redis.url);
  const api = await forkApi(env);
  const { base } = api;
  const worker = spawnWorker({ ...env, WORKER_THREADS: '0', WORKER_CONCURRENCY: String(games * 2) });
  const push = await startBot('greedy', { port: 0 });
  const pushBot = await post(base, '/v1/bots', { name: 'push-greedy', url: push.url });
  const stop = new AbortController();
  const finished: Promise<void>[] = [];
  const pullBots: { id: string; token: string }[] = [];
  for (let i = 0; i < games; i++) {
    const bot = await post(base, '/v1/bots', { name: `pull-${i}` });
    pullBots.push({ id: String(bot.id), token: String(bot.token) });
  }
  for (const bot of pullBots) {
    finished.push(
      new Promise<void>((resolve, reject) => {
        runPullBot({
          arena: base,
          token: bot.token,
          choose: chooseGreedy,
          signal: stop.signal,
          onEvent: (event) => {
            if (event === 'matchFinished') resolve();
          },
        }).catch(reject);
      }),
    );
  }
  // The streams are open before the matches: a bot's first turn is told on its stream.
  await new Promise((resume) => setTimeout(resume, 500));

  const monitor = new Redis(redis.url);
  const watching = await monitor.monitor();
  let commands = 0;
  let scripted = 0;
  const byName = new Map<string, number>();
  // Who sent each command: the connections' names (`reversi-arena-api`, `…-worker`, BullMQ's).
  const names = new Map<string, string>();
  for (const line of String(await monitor.client('LIST'))
    .trim()
    .split('\n')) {
    const addr = /addr=(\S+)/.exec(line)?.[1];
    const name = /name=(\S*)/.exec(line)?.[1];
    if (addr) names.set(addr, name || '?');
  }
  watching.on('monitor', (_time: string, args: string[], source: string) => {
    const name = args[0]?.toLowerCase() ?? '';
    if (name === 'echo') return;
    if (source === 'lua') scripted++;
    else commands++;
    const key = source === 'lua' ? `lua:${name}` : `${names.get(source) ?? source} ${name}`;
    byName.set(key, (byName.get(key) ?? 0) + 1);
  });
  const cpuBefore = await api.usage();
  const started = performance.now();
  const ids: string[] = [];
  for (const [i, bot] of pullBots.entries()) {
    const colours = i % 2 === 0 ? { black: bot.id, white: pushBot.id } : { black: pushBot.id, white: bot.id };
    const match = await post(base, '/v1/matches', { ...colours, rules: { timeLimitMs } });
    ids.push(String(match.id));
  }
  await Promise.all(finished);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await api.usage();
  // Every command of the games has been told once this one is.
  await monitor.echo('done');
  await new Promise((resume) => setTimeout(resume, 200));
  const counted = commands;
  const ranInScripts = scripted;
  watching.disconnect();

  let plies = 0;
  let pullMoves = 0;
  const reasons: Record<string, number> = {};
  for (const [i, id] of ids.entries()) {
    const res = await fetch(`${base}/v1/matches/${id}`);
    const match = (await res.json()) as {
      moves: { player: string; square: string; opening?: boolean }[];
      result: { reason: string };
    };
    const pullColour = i % 2 === 0 ? 'black' : 'white';
    plies += match.moves.length;
    pullMoves += match.moves.filter(
      (m) => m.player === pullColour && m.square !== 'pass' && !m.opening,
    ).length;
    reasons[match.result.reason] = (reasons[match.result.reason] ?? 0) + 1;
  }
  stop.abort();
  const apiCpuMs = cpuAfter.cpuMs - cpuBefore.cpuMs;
  const summary = {
    games,
    seconds: Number(seconds.toFixed(2)),
    results: reasons,
    plies,
    pullMoves,
    redisCommands: counted,
    commandsPerPly: Number((counted / plies).toFixed(1)),
    withScriptsCommandsPerPly: Number(((counted + ranInScripts) / plies).toFixed(1)),
    apiCpuMsPerPullMove: Number((apiCpuMs / pullMoves).toFixed(3)),
    apiErrors5xx: cpuAfter.errors,
  };
  console.log(
    `${games} pull games, ${plies} plies (${pullMoves} pull moves) in ${summary.seconds} s: ` +
      `${summary.commandsPerPly} Redis commands sent a ply (${summary.withScriptsCommandsPerPly} with those scripts ran), API CPU ${summary.apiCpuMsPerPullMove} ms a pull move, ` +
      `${summary.apiErrors5xx} 5xx`,
  );
  if (values.breakdown) {
    const rows = [...byName].sort((a, b) => b[1] - a[1]);
    for (const [name, count] of rows) console.log(`${name.padEnd(28)} ${(count / plies).toFixed(2)} a ply`);
  }
  console.log(JSON.stringify(summary));
  await push.close();
  await stopProcesses(worker, api.child);
  monitor.disconnect();
  redis.stop();
}

await main();
