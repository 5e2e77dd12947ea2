import { setTimeout as sleep } from 'node:timers/promises';
import type { Action, Turn } from '../../src/house/turn.ts';
import { readSse } from './sse.ts';

export interface PullBotOptions {
  /** The arena's base URL, e.g. `http://localhost:3000`. */
  readonly arena: string;
  readonly token: string;
  readonly choose: (turn: Turn) => Action;
  readonly signal: AbortSignal;
  /** Called with each event, for logs. */
  readonly onEvent?: (event: string, data: unknown) => void;
}

/** Waits `ms`, or less when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => {});

/** The arena refused the bot's token: no retry will help. */
export class TokenRefusedError extends Error {
  override readonly name = 'TokenRefusedError';
}

/** Throws `TokenRefusedError` for a 401 or 403, with the problem's code when the arena sent one. */
async function refuseIfDenied(res: Response): Promise<void> {
  if (res.status !== 401 && res.status !== 403) return;
  const problem = (await res.json().catch(() => ({}))) as { code?: string };
  throw new TokenRefusedError(
    `the arena refused the token (${res.status}${problem.code ? ` ${problem.code}` : ''})`,
  );
}

/** The bot the token belongs to: its id and name. Throws `TokenRefusedError` for a bad token. */
export async function whoAmI(arena: string, token: string): Promise<{ id: string; name: string }> {
  const res = await fetch(`${arena}/v1/bots/me`, { headers: { authorization: `Bearer ${token}` } });
  await refuseIfDenied(res);
  if (!res.ok) throw new Error(`GET /v1/bots/me answered ${res.status}`);
  return (await res.json()) as { id: string; name: string };
}

/**
 * A pull bot: listens to its event stream and, on each `yourTurn`, posts a move chosen from the
 * state. Reconnects with `Last-Event-ID` when the stream drops, so it misses no turn; when the
 * arena says it is closing (`arenaClosing`, a restart or a deploy), it reconnects after the pause
 * the arena asks for. Runs until `signal` aborts; throws `TokenRefusedError` when the arena
 * refuses the token.
 *
 * @example
 * await runPullBot({ arena: 'http://localhost:3000', token, choose: chooseGreedy, signal });
 */
export async function runPullBot(options: PullBotOptions): Promise<void> {
  const { arena, token, signal } = options;
  const auth = { authorization: `Bearer ${token}` };
  let lastEventId: string | undefined;
  while (!signal.aborted) {
    try {
      const res = await fetch(`${arena}/v1/bots/me/events`, {
        headers: {
          ...auth,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal,
      });
      await refuseIfDenied(res);
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      let reconnectAfterMs = 0;
      for await (const event of readSse(res.body)) {
        lastEventId = event.id ?? lastEventId;
        const data: unknown = JSON.parse(event.data);
        options.onEvent?.(event.event, data);
        // Not an error: the stream ends next, and the arena (or the one replacing it) is back soon.
        if (event.event === 'arenaClosing') {
          reconnectAfterMs = (data as { reconnectAfterMs: number }).reconnectAfterMs;
        }
        if (event.event !== 'yourTurn') continue;
        const turn = data as Turn & { matchId: string; ply: number };
        const action = options.choose(turn);
        await fetch(`${arena}/v1/matches/${turn.matchId}/actions`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ ...action, ply: turn.ply }),
          signal,
        });
      }
      await pause(reconnectAfterMs, signal);
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof TokenRefusedError) throw error;
      options.onEvent?.('disconnected', String(error));
      await pause(1000, signal);
    }
  }
}
