/**
 * Two instant bots (each answers its first legal move, after BOT_LATENCY_MS if set) in a process of their own, so that the
 * arena under benchmark does not share its event loop with them. Prints their URLs as one JSON line.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long each answer is held back (bench:concurrency's slow bots); instant by default. */
const LATENCY_MS = Number(process.env.BOT_LATENCY_MS ?? 0);

async function instantBot(): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const state = JSON.parse(Buffer.concat(chunks).toString());
      const answer = () =>
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ action: state.legalMoves[0] }));
      if (LATENCY_MS > 0) setTimeout(answer, LATENCY_MS);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const urls = await Promise.all([instantBot(), instantBot()]);
console.log(JSON.stringify(urls));
// Exit with the parent.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
