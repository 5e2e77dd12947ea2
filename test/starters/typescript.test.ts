import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/bot-client/signing.ts';
import type { components } from '../../src/contract/index.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { firstTurnState } from '../support/loopback-bot.ts';
import { freePort } from '../support/private-redis.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import {
  answerBotsMe,
  postedActions,
  type Script,
  scriptedArena,
  sseEvents,
} from '../support/scripted-arena.ts';
import {
  expectSoloPlayed,
  replayed,
  runStarterProcess,
  type StarterBot,
  startSolo,
} from './starter-process.ts';

/**
 * The TypeScript starter bots (starters/typescript/), run as a person runs them from the repository's
 * root: `npx tsx starters/typescript/push-bot.ts` and `… pull-bot.ts` as child processes (node with
 * tsx's loader, as npx runs it), against a real arena on real Redis over loopback HTTP.
 */

const PUSH_BOT = 'starters/typescript/push-bot.ts';
const PULL_BOT = 'starters/typescript/pull-bot.ts';
// Generous: two cores run the arena, Redis, the test and the bots at once.
const RULES = { timeLimitMs: 5000, overageMs: 5000 };

type Match = components['schemas']['Match'];

/** Starts `tsx <script> <args>` from the repository's root, killed when the test ends. */
function runStarter(script: string, args: string[]): StarterBot {
  return runStarterProcess(process.execPath, ['--import', 'tsx', script, ...args], script);
}

let world: PullArena;
let h: PullArena['h'];
beforeAll(async () => {
  // Allowed by the harness already; said here since the bots listen on loopback.
  world = await startPullArena({ ARENA_ALLOW_PRIVATE_BOT_URLS: 'true' });
  h = world.h;
});
afterAll(() => world?.close());

/** Plays match `id` on the arena's runner to its end and answers the match as the API shows it. */
async function played(id: string): Promise<Match> {
  expect(await world.arena.runner.play(id, new AbortController().signal)).toBe('finished');
  const res = await request(h.app).get(`/v1/matches/${id}`);
  expect(res.status).toBe(200);
  return res.body as Match;
}

/**
 * As a person does it: picks a free port, registers a push bot at that URL, and runs the starter
 * there with the bot's secret, until it says it listens.
 */
async function pushStarter(name: string): Promise<RegisteredBot & { bot: StarterBot; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const registered = await registerBot(h, { name, url });
  const bot = runStarter(PUSH_BOT, ['--port', String(port), '--secret', registered.webhookSecret!]);
  await bot.line(new RegExp(`^push bot listening at ${url} `));
  return { ...registered, bot, url };
}

describe('starters/typescript/push-bot.ts', { timeout: 60_000 }, () => {
  it('plays a whole match against another bot, every move legal', async () => {
    const starter = await pushStarter('ts-push-full');
    const other = await registerBot(h, { name: 'ts-push-opponent', url: world.pushBot.url });
    const match = await played(await createMatch(h, starter.id, other.id, { rules: RULES }));

    expect(match.status).toBe('finished');
    expect(match.result?.reason, starter.bot.output()).toBe('completed');
    const placed = replayed(match);
    expect(placed.black).toBeGreaterThan(0);
    expect(placed.white).toBeGreaterThan(0);
    // Each of its moves was a signed call it verified and answered.
    expect(starter.bot.output()).toContain(`${match.id} ply`);
    expect(starter.bot.output()).not.toContain('refused a call');
  });

  it('plays a whole solo game started with POST /v1/solo, each move with its colour', async () => {
    const starter = await pushStarter('ts-push-solo');
    const match = await played(await startSolo(h, starter.token, { layout: 11, scoring: 'points' }, RULES));

    expect(match.result?.reason, starter.bot.output()).toBe('completed');
    expectSoloPlayed(match);
    expect(starter.bot.output()).toMatch(
      new RegExp(`${match.id} ply 1: \\{"action":"[a-h][1-8]","colour":"(black|white)"\\}`),
    );
  });

  it('answers the arena check with a legal action', async () => {
    const starter = await pushStarter('ts-push-check');
    const res = await request(h.app).post('/v1/bots/me/check').set(bearer(starter.token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 200, legal: true, fault: null });
  });

  describe('when a call is not signed with its secret', () => {
    it('answers 401 with a short JSON error, and says why in its log', async () => {
      const starter = await pushStarter('ts-push-forged');
      const body = JSON.stringify(firstTurnState());
      const forged = signedHeaders(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'match_x-1-abc',
        Date.now(),
        body,
      );
      const stale = signedHeaders(starter.webhookSecret!, 'match_x-1-abc', Date.now() - 10 * 60_000, body);
      const tampered = signedHeaders(starter.webhookSecret!, 'match_x-1-abc', Date.now(), `${body} `);
      for (const headers of [forged, stale, tampered, {}]) {
        const res = await fetch(starter.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(await res.json()).toEqual({ error: expect.any(String) });
      }
      await starter.bot.line(/refused a call: .*too old/);
      // The same call, signed with its secret now, is answered.
      const good = signedHeaders(starter.webhookSecret!, 'match_x-1-abc', Date.now(), body);
      const res = await fetch(starter.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...good },
        body,
      });
      expect(res.status).toBe(200);
      const { action } = (await res.json()) as { action: string };
      expect(firstTurnState().legalMoves).toContain(action);
    });
  });

  it('refuses to start without a whsec_ secret, saying so', async () => {
    const starter = runStarter(PUSH_BOT, ['--port', '0', '--secret', 'not-a-secret']);
    expect(await starter.closed()).toBe(2);
    expect(starter.output()).toContain('whsec_');
  });
});

describe('starters/typescript/pull-bot.ts', { timeout: 60_000 }, () => {
  const pullStarter = (token: string) =>
    runStarter(PULL_BOT, ['--arena', world.base, '--token', token, '-v']);
  /** Runs the pull bot with `bot`'s token, until it says whom it plays as. */
  async function startPullBot(bot: RegisteredBot): Promise<StarterBot> {
    const starter = pullStarter(bot.token);
    await starter.line(new RegExp(`pull bot playing as ${bot.name} \\(${bot.id}\\)`));
    return starter;
  }

  it('plays a whole match from its event stream, every move legal', async () => {
    const puller = await registerBot(h, { name: 'ts-pull-full' });
    const starter = await startPullBot(puller);
    const other = await registerBot(h, { name: 'ts-pull-opponent', url: world.pushBot.url });
    const match = await played(await createMatch(h, other.id, puller.id, { rules: RULES }));

    expect(match.status).toBe('finished');
    expect(match.result?.reason, starter.output()).toBe('completed');
    const placed = replayed(match);
    expect(placed.black).toBeGreaterThan(0);
    expect(placed.white).toBeGreaterThan(0);
    await starter.line(new RegExp(`^\\S+ ${match.id}: .*\\(completed\\)$`));
  });

  it('plays the single-direction rule against the push starter, naming directions', async () => {
    const puller = await registerBot(h, { name: 'ts-pull-single' });
    const pull = await startPullBot(puller);
    const push = await pushStarter('ts-push-single');
    const match = await played(
      await createMatch(h, push.id, puller.id, { rules: { ...RULES, captureRule: 'single-direction' } }),
    );

    expect(match.result?.reason, `${pull.output()}\n${push.bot.output()}`).toBe('completed');
    replayed(match);
    expect(match.moves.some((move) => move.direction !== undefined)).toBe(true);
  });

  it('plays a whole solo game started with POST /v1/solo, each move with its colour', async () => {
    const puller = await registerBot(h, { name: 'ts-pull-solo' });
    const starter = await startPullBot(puller);
    const match = await played(await startSolo(h, puller.token, { layout: 12 }, RULES));

    expect(match.result?.reason, starter.output()).toBe('completed');
    expectSoloPlayed(match);
    await starter.line(
      new RegExp(`^\\S+ ${match.id} ply 1: \\{"action":"[a-h][1-8]","colour":"(black|white)"\\}$`),
    );
    const score = match.result?.discs.black;
    await starter.line(new RegExp(`^\\S+ ${match.id}: scored ${score} \\(completed\\)$`));
  });

  it('exits cleanly on Ctrl-C', async () => {
    const puller = await registerBot(h, { name: 'ts-pull-stop' });
    const starter = await startPullBot(puller);
    starter.child.kill('SIGINT');
    expect(await starter.closed()).toBe(0);
    expect(starter.output()).toMatch(/ stopped\n/);
  });

  it('says the arena refused a bad token, and exits with 1', async () => {
    const starter = pullStarter('rvb_not-a-real-token');
    expect(await starter.closed()).toBe(1);
    expect(starter.output()).toContain('the arena refused the token (401 auth/invalid-token');
  });
});

/**
 * Runs `script`, then sends a keep-alive comment while the stream is still open, as the arena does:
 * it is also what sends the head of a stream that has nothing else to say yet.
 */
const keptAlive =
  (script: Script): Script =>
  (res, req) => {
    script(res, req);
    if (!res.writableEnded) res.write(': keep-alive\n\n');
  };

/**
 * An arena's event stream and actions, by hand. Connection n of the stream runs `streams[n]` (one
 * that stays open once they run out); each connection's headers and time are kept, and each posted
 * action is answered by `act`.
 */
async function handMadeArena(
  streams: Script[],
  act: (body: Record<string, unknown>, res: ServerResponse) => void = (_, res) =>
    res.writeHead(200).end('{}'),
) {
  const actions = postedActions(act);
  const arena = await scriptedArena(streams.map(keptAlive), {
    open: keptAlive((res) => sseEvents(res)),
    handle: (req, res) => answerBotsMe(req, res) || actions.handle(req, res),
  });
  return { ...arena, actions: actions.posted };
}

describe('starters/typescript/pull-bot.ts, when its stream drops', { timeout: 30_000 }, () => {
  it('reconnects with Last-Event-ID after its retry, and waits out a 429 for its Retry-After', async () => {
    const started = { matchId: 'match_1', black: { name: 'a' }, white: { name: 'b' } };
    const arena = await handMadeArena([
      (res) => {
        sseEvents(res, 'retry: 1500', `id: 7-0\nevent: matchStarted\ndata: ${JSON.stringify(started)}`);
        setTimeout(() => res.socket?.destroy(), 50);
      },
      (res) => {
        res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(JSON.stringify({ status: 429, code: 'streams/too-many', title: 'Too many' }));
      },
    ]);
    try {
      const starter = runStarter(PULL_BOT, ['--arena', arena.url, '--token', 'rvb_any']);
      await arena.connection(2);
      const [first, second, third] = arena.seen;
      expect(first?.headers.authorization).toBe('Bearer rvb_any');
      expect(first?.headers['last-event-id']).toBeUndefined();
      expect(second?.headers['last-event-id']).toBe('7-0');
      expect(third?.headers['last-event-id']).toBe('7-0');
      // Measured on the server, so never shorter but for a timer firing a few milliseconds early.
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(1500 - 5);
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(1000 - 5);
      await starter.line(/event stream refused \(429 streams\/too-many/);
      expect(starter.output()).toMatch(/event stream (ended|lost .*); reconnecting in 1\.5 s/);
    } finally {
      arena.close();
    }
  });

  it('records a turn as seen only once its move is posted: a failed post is told again', async () => {
    const state = { ...firstTurnState(), matchId: 'match_1', toMove: 'white', status: 'running' };
    const turn = `id: 8-0\nevent: yourTurn\ndata: ${JSON.stringify(state)}`;
    let refusals = 3; // as many as the bot's attempts at one post: it gives up and reconnects
    const arena = await handMadeArena(
      [
        (res) =>
          sseEvents(
            res,
            'retry: 200',
            'id: 7-0\nevent: matchStarted\ndata: {"matchId":"match_1","black":{"name":"a"},"white":{"name":"b"}}',
            turn,
          ),
        (res) => sseEvents(res, turn),
      ],
      (_, res) => {
        if (refusals-- > 0) res.writeHead(503).end(JSON.stringify({ status: 503, code: 'unavailable' }));
        else res.writeHead(200).end(JSON.stringify(state));
      },
    );
    try {
      const starter = runStarter(PULL_BOT, ['--arena', arena.url, '--token', 'rvb_any', '-v']);
      await arena.connection(1);
      // Resumed after the last event it handled, not after the turn it could not play.
      expect(arena.seen[1]?.headers['last-event-id']).toBe('7-0');
      await starter.line(/match_1 ply 1: \{"action":"/);
      expect(arena.actions).toHaveLength(4);
      expect(new Set(arena.actions.map((action) => JSON.stringify(action))).size).toBe(1);
      expect(arena.actions[0]).toMatchObject({ ply: 1, action: expect.stringMatching(/^[a-h][1-8]$/) });
      expect(starter.output()).toContain('posting to match_1 answered 503');
    } finally {
      arena.close();
    }
  });
});
