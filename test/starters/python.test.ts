import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/bot-client/signing.ts';
import type { components } from '../../src/contract/index.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { firstTurnState } from '../support/loopback-bot.ts';
import { freePort } from '../support/private-redis.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { answerBotsMe, scriptedArena, sseEvents } from '../support/scripted-arena.ts';
import {
  expectSoloPlayed,
  replayed,
  runStarterProcess,
  type StarterBot,
  startSolo,
} from './starter-process.ts';

/**
 * The Python starter bots (starters/python/), run as a person runs them: `python3 push_bot.py` and
 * `python3 pull_bot.py` as child processes, against a real arena on real Redis over loopback HTTP.
 */

const PUSH_BOT = 'starters/python/push_bot.py';
const PULL_BOT = 'starters/python/pull_bot.py';
// Generous: two cores run the arena, Redis, the test and Python at once.
const RULES = { timeLimitMs: 5000, overageMs: 5000 };

type Match = components['schemas']['Match'];

/** Fails the whole file, saying why, when there is no Python 3.9+ to run the starters with. */
function requirePython(): void {
  const probe = spawnSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 9))'], {
    encoding: 'utf8',
  });
  const needs = 'test/starters/python.test.ts runs the Python starter bots: it needs python3, 3.9 or later';
  if (probe.error) throw new Error(`${needs}, and python3 did not run (${probe.error.message})`);
  if (probe.status !== 0 || probe.stdout.trim() !== 'True') {
    throw new Error(
      `${needs}; this python3 is older or failed (${probe.stdout.trim()}${probe.stderr.trim()})`,
    );
  }
}

/** Starts `python3 <script> <args>` from the repository's root, killed when the test ends. */
function runPython(script: string, args: string[]): StarterBot {
  // No __pycache__ in starters/.
  return runStarterProcess('python3', [script, ...args], script, { PYTHONDONTWRITEBYTECODE: '1' });
}

let world: PullArena;
let h: PullArena['h'];
beforeAll(async () => {
  requirePython();
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
 * As a person does it: picks a free port, registers a push bot at that URL, and runs the Python bot
 * there with the bot's secret, until it says it listens.
 */
async function pythonPushBot(name: string): Promise<RegisteredBot & { bot: StarterBot; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const registered = await registerBot(h, { name, url });
  const bot = runPython(PUSH_BOT, ['--port', String(port), '--secret', registered.webhookSecret!]);
  await bot.line(new RegExp(`^push bot listening at ${url} `));
  return { ...registered, bot, url };
}

describe('starters/python/push_bot.py', { timeout: 60_000 }, () => {
  it('plays a whole match against another bot, every move legal', async () => {
    const python = await pythonPushBot('py-push-full');
    const other = await registerBot(h, { name: 'py-push-opponent', url: world.pushBot.url });
    const match = await played(await createMatch(h, python.id, other.id, { rules: RULES }));

    expect(match.status).toBe('finished');
    expect(match.result?.reason, python.bot.output()).toBe('completed');
    const placed = replayed(match);
    expect(placed.black).toBeGreaterThan(0);
    expect(placed.white).toBeGreaterThan(0);
    // Each of its moves was a signed call it verified and answered.
    expect(python.bot.output()).toContain(`${match.id} ply`);
    expect(python.bot.output()).not.toContain('refused a call');
  });

  it('plays a whole solo game started with POST /v1/solo, each move with its colour', async () => {
    const python = await pythonPushBot('py-push-solo');
    const match = await played(await startSolo(h, python.token, { layout: 11, scoring: 'points' }, RULES));

    expect(match.result?.reason, python.bot.output()).toBe('completed');
    expectSoloPlayed(match);
    expect(python.bot.output()).toMatch(
      new RegExp(`${match.id} ply 1: \\{"action": "[a-h][1-8]", "colour": "(black|white)"\\}`),
    );
  });

  it('answers the arena check with a legal action', async () => {
    const python = await pythonPushBot('py-push-check');
    const res = await request(h.app).post('/v1/bots/me/check').set(bearer(python.token));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 200, legal: true, fault: null });
  });

  describe('when a call is not signed with its secret', () => {
    it('answers 401 with a short JSON error', async () => {
      const python = await pythonPushBot('py-push-forged');
      const body = JSON.stringify(firstTurnState());
      const forged = signedHeaders(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'match_x-1-abc',
        Date.now(),
        body,
      );
      const stale = signedHeaders(python.webhookSecret!, 'match_x-1-abc', Date.now() - 10 * 60_000, body);
      for (const headers of [forged, stale, {}]) {
        const res = await fetch(python.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        expect(res.status).toBe(401);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(await res.json()).toEqual({ error: expect.any(String) });
      }
      // The same call, signed with its secret now, is answered.
      const good = signedHeaders(python.webhookSecret!, 'match_x-1-abc', Date.now(), body);
      const res = await fetch(python.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...good },
        body,
      });
      expect(res.status).toBe(200);
      const { action } = (await res.json()) as { action: string };
      expect(firstTurnState().legalMoves).toContain(action);
    });
  });
});

describe('starters/python/pull_bot.py', { timeout: 60_000 }, () => {
  const pullBot = (token: string) =>
    runPython(PULL_BOT, ['--arena', world.base, '--token', token, '--verbose']);
  /** Runs the pull bot with `bot`'s token, until it says whom it plays as. */
  async function startPullBot(bot: RegisteredBot): Promise<StarterBot> {
    const python = pullBot(bot.token);
    await python.line(new RegExp(`pull bot playing as ${bot.name} \\(${bot.id}\\)`));
    return python;
  }

  it('plays a whole match from its event stream, every move legal', async () => {
    const puller = await registerBot(h, { name: 'py-pull-full' });
    const python = await startPullBot(puller);
    const other = await registerBot(h, { name: 'py-pull-opponent', url: world.pushBot.url });
    const match = await played(await createMatch(h, other.id, puller.id, { rules: RULES }));

    expect(match.status).toBe('finished');
    expect(match.result?.reason, python.output()).toBe('completed');
    const placed = replayed(match);
    expect(placed.black).toBeGreaterThan(0);
    expect(placed.white).toBeGreaterThan(0);
    await python.line(new RegExp(`^\\S+ ${match.id}: .*\\(completed\\)$`));
  });

  it('plays the single-direction rule against the push starter, naming directions', async () => {
    const puller = await registerBot(h, { name: 'py-pull-single' });
    const pull = await startPullBot(puller);
    const push = await pythonPushBot('py-push-single');
    const match = await played(
      await createMatch(h, push.id, puller.id, { rules: { ...RULES, captureRule: 'single-direction' } }),
    );

    expect(match.result?.reason, `${pull.output()}\n${push.bot.output()}`).toBe('completed');
    replayed(match);
    expect(match.moves.some((move) => move.direction !== undefined)).toBe(true);
  });

  it('plays a whole solo game started with POST /v1/solo, each move with its colour', async () => {
    const puller = await registerBot(h, { name: 'py-pull-solo' });
    const python = await startPullBot(puller);
    const match = await played(await startSolo(h, puller.token, { layout: 12 }, RULES));

    expect(match.result?.reason, python.output()).toBe('completed');
    expectSoloPlayed(match);
    await python.line(
      new RegExp(`^\\S+ ${match.id} ply 1: \\{"action": "[a-h][1-8]", "colour": "(black|white)"\\}$`),
    );
    const score = match.result?.discs.black;
    await python.line(new RegExp(`^\\S+ ${match.id}: scored ${score} \\(completed\\)$`));
  });

  it('exits cleanly on Ctrl-C', async () => {
    const puller = await registerBot(h, { name: 'py-pull-stop' });
    const python = await startPullBot(puller);
    python.child.kill('SIGINT');
    expect(await python.closed()).toBe(0);
    expect(python.output()).toMatch(/ stopped\n/);
  });

  it('says the arena refused a bad token, and exits with 1', async () => {
    const python = pullBot('rvb_not-a-real-token');
    expect(await python.closed()).toBe(1);
    expect(python.output()).toContain('the arena refused the token (401 auth/invalid-token');
  });
});

/**
 * An arena's event stream, by hand: the first connection gets a `matchStarted` with an id, then the
 * connection is cut; the second is refused `429` with `Retry-After: 1`; the third stays open. Each
 * connection's headers and time are kept.
 */
function droppingArena() {
  const started = { matchId: 'match_1', black: { name: 'a' }, white: { name: 'b' } };
  return scriptedArena(
    [
      (res) => {
        sseEvents(res, 'retry: 2000');
        // Cut once the event has gone out, so that the bot has its id to resume from.
        res.write(`id: 7-0\nevent: matchStarted\ndata: ${JSON.stringify(started)}\n\n`, () => {
          setTimeout(() => res.socket?.destroy(), 50);
        });
      },
      (res) => {
        res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(
          JSON.stringify({ type: 'about:blank', title: 'Too many', status: 429, code: 'streams/too-many' }),
        );
      },
    ],
    { handle: answerBotsMe, open: (res) => sseEvents(res, ': keep-alive') },
  );
}

describe('starters/python/pull_bot.py, when its stream drops', { timeout: 30_000 }, () => {
  it('reconnects with Last-Event-ID, and waits out a 429 for its Retry-After', async () => {
    const arena = await droppingArena();
    try {
      const python = runPython(PULL_BOT, ['--arena', arena.url, '--token', 'rvb_any']);
      await arena.connection(2);
      const [first, second, third] = arena.seen;
      expect(first?.headers.authorization).toBe('Bearer rvb_any');
      expect(first?.headers['last-event-id']).toBeUndefined();
      expect(second?.headers['last-event-id']).toBe('7-0');
      expect(third?.headers['last-event-id']).toBe('7-0');
      // Measured on the server, so never shorter but for a timer firing a few milliseconds early.
      expect(third!.at - second!.at).toBeGreaterThanOrEqual(1000 - 5);
      expect(python.output()).toContain('event stream ended; reconnecting in 2.0 s');
      expect(python.output()).toContain('event stream refused (429 streams/too-many');
    } finally {
      arena.close();
    }
  });
});
