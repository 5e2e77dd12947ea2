import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, type RegisteredBot, registerBot } from '../support/api.ts';
import { createHarness, type Harness, steppingClock } from '../support/harness.ts';
import { schedulerFor } from '../support/scheduler.ts';

const HOUR = 3_600_000;
const NOON_HALF = Date.parse('2026-12-07T10:30:00Z');
const SERIES = [
  {
    key: 'quick',
    name: 'Quick round robin',
    format: 'round-robin',
    every: '1h',
    minEntrants: 3,
    rated: false,
  },
  {
    key: 'house',
    name: 'House Swiss',
    format: 'swiss',
    rounds: 3,
    every: '1h',
    at: '30m',
    minEntrants: 4,
    houseBots: true,
  },
];

const clock = steppingClock(NOON_HALF + 1000);
let h: Harness;
let scheduler: Awaited<ReturnType<typeof schedulerFor>>;
let bots: RegisteredBot[];
beforeAll(async () => {
  h = await createHarness({ EVENTS: JSON.stringify(SERIES), HOUSE_BOTS: 'true' }, { clock });
  scheduler = await schedulerFor(h);
  bots = [];
  for (let i = 0; i < 3; i++) bots.push(await registerBot(h, { name: `eventgoer-${i}` }));
});
afterAll(async () => {
  await scheduler?.close();
  await h?.close();
});

type Listed = { id: string; series: string | null; status: string; startsAt: string | null };
const listed = async (): Promise<Listed[]> =>
  (await request(h.app).get('/v1/tournaments?limit=100').expect(200)).body.items;
const bySeries = async (key: string) => (await listed()).filter((t) => t.series === key);
const get = (id: string) => request(h.app).get(`/v1/tournaments/${id}`);
const enter = (id: string, bot: RegisteredBot) =>
  request(h.app).post(`/v1/tournaments/${id}/entries`).set(bearer(bot.token));

describe('scheduled events', () => {
  it('opens the next event of every series from the first look, once however often it looks', async () => {
    const first = await scheduler.scheduler.runEvents();
    expect(first?.created).toHaveLength(2);
    // Two processes at once: the lock lets one look; a look without it still creates nothing twice.
    await Promise.all([scheduler.scheduler.runEvents(), scheduler.scheduler.runEvents()]);
    const quick = await bySeries('quick');
    expect(quick).toHaveLength(1);
    expect(quick[0]).toMatchObject({
      name: 'Quick round robin',
      status: 'open',
      startsAt: '2026-12-07T11:00:00.000Z',
      minEntrants: 3,
      rated: false,
      entrantCount: 0,
    });
    // The house series starts at half past: 10:30:01 is past this one, so the next is 11:30.
    const house = await bySeries('house');
    expect(house).toHaveLength(1);
    expect(house[0]).toMatchObject({ startsAt: '2026-12-07T11:30:00.000Z', rated: true, roundCount: 3 });
  });

  it('enters the house bots in a series that asks for them', async () => {
    const [house] = await bySeries('house');
    const res = await get(house!.id).expect(200);
    expect(res.body.entrants.map((e: { name: string }) => e.name).sort()).toEqual(
      expect.arrayContaining(['house-greedy', 'house-random']),
    );
    expect(res.body.entrantCount).toBeGreaterThanOrEqual(4);
  });

  it('takes entries with a bot token until it starts, then starts at its time with round 1', async () => {
    const [quick] = await bySeries('quick');
    for (const bot of bots) expect((await enter(quick!.id, bot)).status).toBe(201);
    clock.advance(30 * 60_000 - 2000);
    expect((await scheduler.scheduler.runEvents())?.due).toEqual([]);
    clock.advance(1000);
    const tick = await scheduler.scheduler.runEvents();
    expect(tick?.due).toEqual([{ id: quick!.id, outcome: 'started' }]);
    const started = (await get(quick!.id).expect(200)).body;
    expect(started.status).toBe('running');
    expect(started.rounds).toHaveLength(1);
    expect(started.rounds[0].games.every((g: { match: string | null }) => g.match !== null)).toBe(true);
    const late = await enter(quick!.id, bots[0]!);
    expect(late.status).toBe(409);
    // The series' next event opened in the same look.
    const next = (await bySeries('quick')).find((t) => t.status === 'open');
    expect(next?.startsAt).toBe('2026-12-07T12:00:00.000Z');
  });

  it('cancels an event with too few entrants at its time, and forgets one nobody entered', async () => {
    const quick = (await bySeries('quick')).find((t) => t.status === 'open')!;
    expect((await enter(quick.id, bots[0]!)).status).toBe(201);
    clock.advance(HOUR);
    const tick = await scheduler.scheduler.runEvents();
    expect(tick?.due).toContainEqual({ id: quick.id, outcome: 'cancelled' });
    const cancelled = (await get(quick.id).expect(200)).body;
    expect(cancelled).toMatchObject({ status: 'cancelled', entrantCount: 1 });
    expect(cancelled.finishedAt).toBe(new Date(clock.now()).toISOString());
    expect((await enter(quick.id, bots[1]!)).body.code).toBe('tournaments/not-open');

    const empty = (await bySeries('quick')).find((t) => t.status === 'open')!;
    clock.advance(HOUR);
    expect((await scheduler.scheduler.runEvents())?.due).toContainEqual({
      id: empty.id,
      outcome: 'discarded',
    });
    await get(empty.id).expect(404);
    expect((await listed()).some((t) => t.id === empty.id)).toBe(false);
  });

  it('starts an admin tournament at its startsAt, and refuses one in the past', async () => {
    const at = (ms: number) => new Date(clock.now() + ms).toISOString();
    const past = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({ name: 'Yesterday', format: 'round-robin', openings: 'standard', startsAt: at(-1000) });
    expect(past.status).toBe(400);
    expect(past.body.code).toBe('tournaments/starts-in-past');
    const created = await request(h.app)
      .post('/v1/tournaments')
      .set(admin)
      .send({
        name: 'At noon',
        format: 'round-robin',
        openings: 'standard',
        bots: bots.slice(0, 2).map((b) => b.id),
        startsAt: at(60_000),
        minEntrants: 2,
      })
      .expect(201);
    expect(created.body).toMatchObject({ startsAt: at(60_000), minEntrants: 2, series: null });
    clock.advance(60_000);
    const tick = await scheduler.scheduler.runEvents();
    expect(tick?.due).toContainEqual({ id: created.body.id, outcome: 'started' });
  });
});
