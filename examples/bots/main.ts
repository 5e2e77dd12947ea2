/**
 * Runs an example push bot: `npm run bot -- <random|greedy|alphabeta> --port <p> [--secret whsec_…]
 * [--depth N] [--host 127.0.0.1]`. Register the printed URL with the arena as a bot's `url`.
 */

import { parseArgs } from 'node:util';
import { BOT_KINDS, type BotKind, startBot } from './server.ts';

const USAGE =
  'usage: npm run bot -- <random|greedy|alphabeta> --port <p> [--secret whsec_…] [--depth N] [--host H]';

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
      },
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();

const kind = positionals[0];
if (positionals.length !== 1 || !BOT_KINDS.includes(kind as BotKind)) fail('name one bot kind');
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
