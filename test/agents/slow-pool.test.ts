import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectAgent } from '../../examples/agents/mcp-agent.ts';
import { startWorkers } from '../../src/wiring/processes.ts';
import { bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';
import { serve } from '../support/serve.ts';

/**
 * The slow pool: two agents opt in, matchmaking pairs them at the slow time control, they play both
 * games of the pairing through /mcp, and the result moves their slow ratings alone.
 */
let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let scheduler: Awaited<ReturnType<typeof schedulerFor>>;
const clients: Client[] = [];
beforeAll(async () => {
  h = await createHarness({ SHUTDOWN_GRACE_MS: '0' });
  site = await serve(h);
  workers = await startWorkers(h.config, pino({ level: 'silent' }));
  scheduler = await schedulerFor(h);
}, 60_000);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await scheduler?.close();
  await workers?.close();
  await site?.close();
  await h?.close();
});

interface Seen {
  readonly over: boolean;
  readonly yourTurn: boolean;
  readonly legalMoves: string[];
}

/** Plays `matchIds` one after the other to their end through MCP, always the first legal move. */
async function playThrough(client: Client, matchIds: readonly string[]): Promise<void> {
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
    return result.structuredContent as unknown as Seen;
  };
  for (const matchId of matchIds) {
    for (;;) {
      const state = await tool('arena_state', { matchId, waitMs: 5000 });
      if (state.over) break;
      if (state.yourTurn) await tool('arena_play', { matchId, move: state.legalMoves[0] });
    }
  }
}

describe('the slow pool', { timeout: 90_000 }, () => {
  it('pairs the agents that opted in at the slow time control, and rates them apart', async () => {
    const agents: RegisteredBot[] = [];
    for (const name of ['slow-agent-1', 'slow-agent-2']) {
      const agent = await registerBot(h, { name });
      const opted = await request(h.app)
        .patch(`/v1/bots/${agent.id}`)
        .set(bearer(agent.token))
        .send({ slowPool: true });
      expect(opted.status).toBe(200);
      expect(opted.body).toMatchObject({ slowPool: true, slowRating: null, slowRatedGames: 0 });
      agents.push(agent);
    }
    // A bot that did not opt in is left out, though it is as free.
    await registerBot(h, { name: 'not-slow' });

    const created = await scheduler.scheduler.matchmake();
    expect(created).toHaveLength(2);
    for (const id of created) {
      const match = (await request(h.app).get(`/v1/matches/${id}`)).body;
      expect(match).toMatchObject({
        pool: 'slow',
        rated: true,
        rules: { timeLimitMs: 60_000, overageMs: 60_000 },
      });
      expect([match.black.id, match.white.id].sort()).toEqual(agents.map((a) => a.id).sort());
    }

    for (const agent of agents) clients.push(await connectAgent(site.origin, agent.token));
    await Promise.all(clients.map((client) => playThrough(client, created)));

    const bots = await Promise.all(
      agents.map(async (a) => (await request(h.app).get(`/v1/bots/${a.id}`)).body),
    );
    for (const bot of bots) {
      expect(bot).toMatchObject({ slowRatedGames: 2, ratedGames: 0, rating: 1500 });
    }
    expect(bots[0].slowRating + bots[1].slowRating).toBeCloseTo(3000, 6);
    const slow = (await request(h.app).get('/v1/leaderboard?pool=slow')).body;
    const listed = [...slow.items, ...slow.unranked].map((entry: { bot: { id: string } }) => entry.bot.id);
    expect(listed.sort()).toEqual(agents.map((a) => a.id).sort());
    const arena = (await request(h.app).get('/v1/leaderboard')).body;
    for (const entry of [...arena.items, ...arena.unranked]) expect(entry.rating).toBe(1500);
  });
});
