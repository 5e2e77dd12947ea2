/**
 * A Reversi Arena pull bot: follows its event stream and posts a move on each of its turns.
 *
 *     npx tsx pull-bot.ts --arena http://127.0.0.1:3000 --token rvb_...
 *
 * It opens `GET /v1/bots/me/events` (Server-Sent Events) with the bot's token and, for each `yourTurn`
 * event (whose data is the match state), posts `{"action": ..., "ply": ...}` to
 * `POST /v1/matches/<id>/actions` (plus `"colour"` in the solo game). It plays every match it is
 * given, Reversi or solo, until stopped (Ctrl-C); while it listens, matchmaking may pair the bot for
 * rated games. A dropped stream is reopened with `Last-Event-ID`, so no turn is missed, and an event
 * counts as seen only once it is handled: a move that could not be posted is told again on the next
 * connection. The arena never asks for a pass. Your strategy goes in strategy.ts.
 */

import { parseArgs } from 'node:util';
import {
  type ArenaClient,
  type BotAction,
  BotEventStream,
  createArenaClient,
  describeProblem,
  type MatchFinished,
  type MatchState,
  type Reconnect,
  sleep,
  TokenRefusedError,
  withOwnSignal,
} from '@reversi-arena/client';
import { chooseMove, firstLegal } from './strategy.ts';

// How often one action is posted again after a network error, a 429 or a 5xx, before the stream is
// reopened (which tells the turn again if the arena still waits for it).
const POST_ATTEMPTS = 3;

const USAGE = 'usage: npx tsx pull-bot.ts --arena http://127.0.0.1:3000 --token rvb_… [--verbose]';

const log = (message: string) => console.log(`${new Date().toTimeString().slice(0, 8)} ${message}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A network failure in a few words: fetch's `TypeError: fetch failed` names the cause (ECONNREFUSED…). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Posting a move failed in a way a reconnect may fix. */
class PostFailed extends Error {}

/** What the bot logs before each reconnect (an `arenaClosing` is logged when it comes). */
function logReconnect(reconnect: Reconnect): void {
  const wait = seconds(reconnect.delayMs);
  if (reconnect.reason === 'ended') log(`event stream ended; reconnecting in ${wait}`);
  if (reconnect.reason === 'refused') {
    log(
      `event stream refused (${describeProblem(reconnect.problem, reconnect.status)}); retrying in ${wait}`,
    );
  }
  if (reconnect.reason === 'failed')
    log(`event stream lost (${describe(reconnect.error)}); reconnecting in ${wait}`);
}

function finishedLine({ matchId, result }: MatchFinished, solo: boolean): string {
  if (result === null) return `${matchId}: aborted`;
  if (solo) return `${matchId}: scored ${result.discs.black} (${result.reason})`; // white's is always 0
  const winner = result.winner === null ? 'no winner' : `${result.winner} wins`;
  return `${matchId}: ${winner}, ${result.discs.black}-${result.discs.white} (${result.reason})`;
}

class PullBot {
  /** Solo games under way, for the line their end logs. */
  private readonly soloGames = new Set<string>();

  constructor(
    private readonly arena: ArenaClient,
    private readonly verbose: boolean,
    private readonly signal: AbortSignal,
  ) {}

  /**
   * Posts a move for one `yourTurn`: the strategy's, or the first legal one if that was refused.
   * Throws `PostFailed` when the arena could not be reached: the turn is then told again.
   *
   * Turns are played one at a time, as they come: a strategy that thinks long delays the turns of
   * the bot's other matches (run them concurrently if it plays many at once).
   */
  async play(state: MatchState): Promise<void> {
    if (state.toMove !== state.you || state.legalMoves.length === 0) return; // an old turn: played already
    const { matchId, ply } = state;
    if (state.game === 'solo') this.soloGames.add(matchId); // its matchStarted may have come before this stream
    let action: BotAction;
    try {
      action = chooseMove(state);
    } catch (error) {
      // A bug in the strategy: say where, and play on rather than lose on time.
      const failure = error instanceof Error ? error.stack : String(error);
      log(`${matchId} ply ${ply}: the strategy failed, playing the first legal move:\n${failure}`);
      action = firstLegal(state) ?? { action: state.legalMoves[0]! };
    }
    let answer = await this.post(matchId, action, ply);
    if (answer.status === 422) {
      // The strategy's move is illegal: say so, and play a legal one while the clock runs.
      log(
        `${matchId} ply ${ply}: ${JSON.stringify(action)} refused (${describeProblem(answer.problem, 422)})`,
      );
      action = firstLegal(state) ?? action;
      answer = await this.post(matchId, action, ply);
    }
    if (answer.status === 200) {
      if (this.verbose) log(`${matchId} ply ${ply}: ${JSON.stringify(action)}`);
    } else if (answer.status === 401) {
      throw new TokenRefusedError(401, answer.problem);
    } else {
      // 409: not this bot's turn any more, or the match is over (e.g. a turn told twice).
      const why = describeProblem(answer.problem, answer.status);
      log(`${matchId} ply ${ply}: ${JSON.stringify(action)} not played (${why})`);
    }
  }

  /** Posts an action; retries a network error, a 429 or a 5xx (posting the same ply is harmless). */
  async post(
    matchId: string,
    action: BotAction,
    ply: number,
  ): Promise<{ status: number; problem?: unknown }> {
    for (let attempt = 1; ; attempt++) {
      let status: number;
      let problem: unknown;
      let retryAfter: string | null = null;
      try {
        const { error, response } = await withOwnSignal(this.signal, (own) =>
          this.arena.POST('/v1/matches/{matchId}/actions', {
            params: { path: { matchId } },
            body: { ...action, ply },
            signal: own,
          }),
        );
        ({ status } = response);
        problem = error;
        retryAfter = response.headers.get('retry-after');
      } catch (error) {
        if (this.signal.aborted) throw error;
        if (attempt === POST_ATTEMPTS)
          throw new PostFailed(`posting to ${matchId} failed: ${describe(error)}`);
        await sleep(200 * attempt, this.signal);
        continue;
      }
      if (status !== 429 && status < 500) return { status, problem };
      if (attempt === POST_ATTEMPTS) {
        throw new PostFailed(`posting to ${matchId} answered ${describeProblem(problem, status)}`);
      }
      const wait = status === 429 && retryAfter !== null ? Number(retryAfter) * 1000 : 200 * attempt;
      await sleep(Number.isFinite(wait) ? wait : 200 * attempt, this.signal);
    }
  }

  /** Plays until `signal` aborts. Throws `TokenRefusedError` when the arena refuses the token. */
  async run(token: string, baseUrl: string): Promise<void> {
    const events = new BotEventStream({ baseUrl, token, signal: this.signal, onReconnect: logReconnect });
    while (!this.signal.aborted) {
      try {
        for await (const event of events) {
          if (event.event === 'yourTurn') await this.play(event.data);
          else if (event.event === 'matchStarted') {
            const { matchId, black, white, rules } = event.data;
            // A `layout` marks the solo game, where the bot sits on both sides. Read loosely (`?.`): an
            // event without rules (an older arena's) must not stop the bot.
            const layout = rules?.layout;
            if (layout !== undefined) {
              this.soloGames.add(matchId);
              log(`${matchId}: ${black.name} plays a solo game on layout ${layout}`);
            } else log(`${matchId}: ${black.name} (black) against ${white.name} (white)`);
          } else if (event.event === 'matchFinished') {
            const { matchId } = event.data;
            log(finishedLine(event.data, this.soloGames.has(matchId)));
            this.soloGames.delete(matchId);
          } else if (event.event === 'arenaClosing') {
            // A restart or a deploy, not an error: the stream ends next, and comes back after this pause.
            log(`the arena is closing; reconnecting in ${seconds(event.data.reconnectAfterMs)}`);
          }
          // Asking for the next event marks this one handled: a turn whose post threw is told again.
        }
      } catch (error) {
        if (this.signal.aborted) return;
        if (!(error instanceof PostFailed)) throw error;
        log(`${error.message}; reconnecting in ${seconds(events.retryMs)}`);
        await sleep(events.retryMs, this.signal);
      }
    }
  }
}

async function main(): Promise<number> {
  let values: { arena?: string; token?: string; verbose?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        arena: { type: 'string' },
        token: { type: 'string' },
        verbose: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  const token = values.token ?? process.env.ARENA_TOKEN;
  if (!token) {
    console.error(`--token rvb_… is required: the token the arena showed at registration\n${USAGE}`);
    return 2;
  }
  const base = (values.arena ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const arena = createArenaClient({ baseUrl: base, token });
  try {
    const { data: me, error, response } = await arena.GET('/v1/bots/me', { signal: stop.signal });
    if (response.status === 401 || response.status === 403) {
      console.error(`${base}: the arena refused the token (${describeProblem(error, response.status)})`);
      return 1;
    }
    if (!me) {
      console.error(
        `cannot reach the arena at ${base} (GET /v1/bots/me answered ${describeProblem(error, response.status)})`,
      );
      return 1;
    }
    log(`pull bot playing as ${me.name} (${me.id}) through ${base}`);
    await new PullBot(arena, values.verbose ?? false, stop.signal).run(token, base);
  } catch (error) {
    if (stop.signal.aborted) {
      log('stopped');
      return 0;
    }
    if (error instanceof TokenRefusedError) {
      console.error(`${base}: ${error.message}`);
      return 1;
    }
    if (error instanceof TypeError) {
      console.error(`cannot reach the arena at ${base} (${describe(error)})`);
      return 1;
    }
    throw error;
  }
  log('stopped');
  return 0;
}

process.exitCode = await main();
