/**
 * Two instant bots (each answers its first legal move, after BOT_LATENCY_MS if set) in a process of
 * their own, so that the arena under benchmark does not share its event loop with them. Prints their
 * URLs as one JSON line.
 *
 * They stand for bots on other machines, yet share this machine's cores with the arena, so they are
 * written to cost as little as they can: a bare HTTP/1.1 responder on `net` that frames requests by
 * content-length (the arena's client always sends one) and reads the first legal move straight from
 * the state's bytes. Node's http server and a JSON.parse per request took about 35% of a core at
 * 5,000 requests a second, where this takes about 15%: CPU the arena's threads got less of.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';

/** How long each answer is held back (bench:concurrency's slow bots); instant by default. */
const LATENCY_MS = Number(process.env.BOT_LATENCY_MS ?? 0);

const HEAD_END = Buffer.from('\r\n\r\n');
const LEGAL_MOVES = Buffer.from('"legalMoves":["');
const QUOTE = 0x22;

function answer(json: string, status = '200 OK'): string {
  return `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
}

/** The state's first legal move, read from its bytes where the arena writes it (JSON otherwise). */
function firstLegalMove(body: Buffer): string {
  const at = body.indexOf(LEGAL_MOVES);
  if (at >= 0)
    return body.toString('latin1', at + LEGAL_MOVES.length, body.indexOf(QUOTE, at + LEGAL_MOVES.length));
  return (JSON.parse(body.toString('utf8')) as { legalMoves: string[] }).legalMoves[0]!;
}

/** Answers each request on a keep-alive connection in turn; one the bot cannot frame is refused. */
function serve(socket: Socket): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(pending.toString('latin1', 0, headEnd))?.[1];
      if (length === undefined) {
        socket.end(answer('{"error":"a content-length is required"}', '411 Length Required'));
        return;
      }
      const end = headEnd + HEAD_END.length + Number(length);
      if (pending.length < end) return;
      const reply = answer(
        JSON.stringify({ action: firstLegalMove(pending.subarray(headEnd + HEAD_END.length, end)) }),
      );
      pending = pending.subarray(end);
      if (LATENCY_MS > 0) setTimeout(() => socket.write(reply), LATENCY_MS);
      else socket.write(reply);
    }
  });
}

async function instantBot(): Promise<string> {
  const server = createServer(serve).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const urls = await Promise.all([instantBot(), instantBot()]);
console.log(JSON.stringify(urls));
// Exit with the parent.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
