/**
 * Runs an example bot.
 * - Push: `npm run bot -- <random|greedy|alphabeta> --port <p> [--secret whsec_…] [--depth N] [--host H]`;
 *   register the printed URL with the arena as a bot's `url`.
 * - Pull: `npm run bot -- pull-<random|greedy|alphabeta> --token rvb_… [--arena http://localhost:3000]`;
 *   plays the matches of the bot that token belongs to, from its event stream.
 */

import { parseArgs } from 'node:util';
import { eventLine } from './event-line.ts';
import { runPullBot, TokenRefusedError, whoAmI } from './pull.ts';
import { BOT_KINDS, type BotKind, chooser, startBot } from './server.ts';

const USAGE =
  'usage: npm run bot -- <random|greedy|alphabeta> --port <p> [--secret whsec_…] [--depth N] [--host H]\n' +
  '       npm run bot -- pull-<random|greedy|alphabeta> --token rvb_… [--arena http://localhost:3000] [--depth N]';

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        port: { type: 'string', short: 'p' },
        secret: { type: 'string' },
        depth: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        arena: { type: 'string' },
      },
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();

const named = positionals[0] ?? '';
const pull = named.startsWith('pull-');
const kind = pull ? named.slice('pull-'.length) : named;
if (positionals.length !== 1 || !BOT_KINDS.includes(kind as BotKind)) fail('name one bot kind');
if (pull) {
  if (!values.token) fail('a pull bot needs --token');
  const arena = (values.arena ?? 'http://localhost:3000').replace(/\/$/, '');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const depth = values.depth === undefined ? undefined : Number(values.depth);
  // One line, no stack trace, for what the user has to fix: the token or the arena's address.
  const exitWith = (error: unknown): never => {
    if (error instanceof TokenRefusedError) console.error(`${named}: ${arena}: ${error.message}`);
    else if (error instanceof TypeError) {
      // fetch's own failure: the arena is not there (its cause says why, e.g. ECONNREFUSED).
      const cause = (error.cause as { code?: string } | undefined)?.code ?? error.message;
      console.error(`${named}: cannot reach the arena at ${arena} (${cause})`);
    } else console.error(error);
    process.exit(1);
  };
  const me = await whoAmI(arena, values.token).catch(exitWith);
  console.log(`${named} bot playing as ${me.name} (${me.id}) through ${arena}`);
  await runPullBot({
    arena,
    token: values.token,
    choose: chooser(kind as BotKind, { depth }),
    signal: stop.signal,
    onEvent: (event, data) => {
      const line = eventLine(event, data);
      if (line !== null) console.log(line);
    },
  }).catch(exitWith);
  process.exit(0);
}
const port = Number(values.port ?? 'missing');
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port must be a port number');
const depth = values.depth === undefined ? undefined : Number(values.depth);
if (depth !== undefined && (!Number.isInteger(depth) || depth < 1 || depth > 12))
  fail('--depth must be 1 to 12');
if (values.secret !== undefined && !values.secret.startsWith('whsec_'))
  fail('--secret must be a whsec_… secret');

const bot = await startBot(kind as BotKind, { port, depth, secret: values.secret, host: values.host });
console.log(`${kind} bot listening at ${bot.url}${values.secret ? ' (verifying signatures)' : ''}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    bot.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
