import request from 'supertest';
import { expect } from 'vitest';
import type { MatchState } from '../../src/contract/index.ts';
import { bearer, type RegisteredBot } from '../support/api.ts';
import type { Harness } from '../support/harness.ts';
import type { SseConnection } from '../support/sse.ts';

/** The pull API as a bot (or, without a token, a spectator) calls it. */
export function pullApi(h: Harness) {
  const state = (id: string, token?: string, waitMs = 0) => {
    const req = request(h.app).get(`/v1/matches/${id}/state`).query({ waitMs });
    return token ? req.set(bearer(token)) : req;
  };
  const act = (id: string, bot: RegisteredBot, body: Record<string, unknown>, key?: string) => {
    const req = request(h.app).post(`/v1/matches/${id}/actions`).set(bearer(bot.token));
    return (key ? req.set('Idempotency-Key', key) : req).send(body);
  };
  /** Long-polls until it is `bot`'s turn with its deadline set, or the match is over. */
  const awaitTurn = async (id: string, bot: RegisteredBot): Promise<MatchState> => {
    for (;;) {
      const res = await state(id, bot.token, 5000);
      expect(res.status).toBe(200);
      const body = res.body as MatchState;
      if (body.toMove === null || (body.toMove === body.you && body.deadline !== null)) return body;
    }
  };
  return { state, act, awaitTurn };
}

/** The next `yourTurn` event of match `id` past ply `afterPly` on a bot's event stream. */
export async function nextTurn(stream: SseConnection, id: string, afterPly = 0): Promise<MatchState> {
  for (;;) {
    const event = await stream.next();
    if (event.event !== 'yourTurn') continue;
    const turn = JSON.parse(event.data) as MatchState;
    if (turn.matchId === id && turn.ply > afterPly) return turn;
  }
}
