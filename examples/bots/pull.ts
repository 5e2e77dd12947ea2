import {
  type ArenaClient,
  BotEventStream,
  createArenaClient,
  describeProblem,
  type MatchState,
  sleep,
  TokenRefusedError,
  withOwnSignal,
} from '@reversi-arena/client';
import type { Action, Turn } from '../../src/house/turn.ts';

export { TokenRefusedError };

export interface PullBotOptions {
  /** The arena's base URL, e.g. `http://localhost:3000`. */
  readonly arena: string;
  readonly token: string;
  readonly choose: (turn: Turn) => Action;
  readonly signal: AbortSignal;
  /**
   * Called with each event, for logs; `connected` each time the stream opens (the bot is listening
   * from then on), `disconnected` (with why) when it is lost.
   */
  readonly onEvent?: (event: string, data: unknown) => void;
}

/** Posting a move failed in a way a reconnect may fix: the arena tells the turn again. */
class PostFailed extends Error {
  override readonly name = 'PostFailed';
}

/** The bot the token belongs to: its id and name. Throws `TokenRefusedError` for a bad token. */
export async function whoAmI(arena: string, token: string): Promise<{ id: string; name: string }> {
  const { data, error, response } = await createArenaClient({ baseUrl: arena, token }).GET('/v1/bots/me');
  if (response.status === 401 || response.status === 403) throw new TokenRefusedError(response.status, error);
  if (!data) throw new Error(`GET /v1/bots/me answered ${describeProblem(error, response.status)}`);
  return data;
}

/**
 * Posts the chosen action for one turn. A refused action (409: the turn was told twice, the match
 * moved on; 422) is the game's business, not an error; a network failure, a 429 or a 5xx throws
 * `PostFailed`, so the turn's event is not marked handled.
 */
async function play(
  arena: ArenaClient,
  turn: MatchState,
  action: Action,
  signal: AbortSignal,
): Promise<void> {
  const { error, response } = await withOwnSignal(signal, (own) =>
    arena.POST('/v1/matches/{matchId}/actions', {
      params: { path: { matchId: turn.matchId } },
      body: {
        action: action.action,
        ...(action.direction ? { direction: action.direction } : {}),
        ply: turn.ply,
      },
      signal: own,
    }),
  ).catch((cause: unknown) => {
    if (signal.aborted) throw cause;
    throw new PostFailed(`posting to ${turn.matchId} failed`, { cause });
  });
  if (response.status === 401) throw new TokenRefusedError(401, error);
  if (response.status === 429 || response.status >= 500) {
    throw new PostFailed(`posting to ${turn.matchId} answered ${describeProblem(error, response.status)}`);
  }
}

/**
 * A pull bot: listens to its event stream and, on each `yourTurn`, posts a move chosen from the
 * state. The stream (`BotEventStream`) reconnects with `Last-Event-ID` after its `retry:` delay when
 * it drops, and after the pause the arena asks for when it says it is closing (a restart or a
 * deploy). An event counts as seen only once it is handled: a move that could not be posted is told
 * again on the next connection. Runs until `signal` aborts; throws `TokenRefusedError` when the arena
 * refuses the token.
 *
 * @example
 * await runPullBot({ arena: 'http://localhost:3000', token, choose: chooseGreedy, signal });
 */
export async function runPullBot(options: PullBotOptions): Promise<void> {
  const { arena, token, signal } = options;
  const client = createArenaClient({ baseUrl: arena, token });
  const events = new BotEventStream({
    baseUrl: arena,
    token,
    signal,
    onOpen: () => options.onEvent?.('connected', undefined),
    onReconnect: ({ reason, error, status, problem }) => {
      // An end and an `arenaClosing` are no failure: the stream comes back by itself.
      if (reason === 'failed') options.onEvent?.('disconnected', String(error));
      if (reason === 'refused') options.onEvent?.('disconnected', describeProblem(problem, status));
    },
  });
  while (!signal.aborted) {
    try {
      for await (const { event, data } of events) {
        options.onEvent?.(event, data);
        if (event === 'yourTurn' && data.toMove === data.you) {
          await play(client, data, options.choose(data as Turn), signal);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (!(error instanceof PostFailed)) throw error;
      options.onEvent?.('disconnected', String(error));
      await sleep(events.retryMs, signal);
    }
  }
}
