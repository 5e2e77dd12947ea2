import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuedMatch } from '../../src/arena/matches.ts';
import { PermissionError } from '../../src/model/errors.ts';
import { registerBot } from '../support/api.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { matchServiceFor } from '../support/scheduler.ts';

let h: Harness;
let black: string;
let white: string;
beforeAll(async () => {
  h = await createHarness();
  black = (await registerBot(h, { name: 'together-black', url: 'http://127.0.0.1:9/' })).id;
  white = (await registerBot(h, { name: 'together-white', url: 'http://127.0.0.1:9/' })).id;
});
afterAll(() => h.close());

const game = (id: string, first: string, second: string) =>
  queuedMatch({
    id,
    black: { id: first, name: first },
    white: { id: second, name: second },
    rules: { firstPlayer: 'white', captureRule: 'all', scoring: 'discs', timeLimitMs: 1000, overageMs: 0 },
    rated: true,
    createdBy: 'admin',
    createdAt: Date.now(),
  });

const balances = () => h.stores.ratings.colorBalances([black, white]);
const queuedOf = async (bot: string) =>
  (await h.stores.matches.listMatches({ botId: bot, limit: 50 })).items.map((m) => m.id);

describe('matches made together (a paired game)', () => {
  it('are stored with the colour balance they change, in one write', async () => {
    const before = await balances();
    const stored = await h.stores.matches.createMatches(
      [game('match_together_a', black, white)],
      new Map([
        [black, 1],
        [white, -1],
      ]),
    );
    expect(stored).toBe('created');
    expect((await h.stores.matches.getMatch('match_together_a'))?.status).toBe('queued');
    expect(await balances()).toEqual([before[0]! + 1, before[1]! - 1]);
  });

  it('are stored all or none: one that exists already stops the others and the balance', async () => {
    expect(await h.stores.matches.createMatches([game('match_together_c', black, white)], new Map())).toBe(
      'created',
    );
    const before = await balances();
    const stored = await h.stores.matches.createMatches(
      [game('match_together_b', black, white), game('match_together_c', white, black)],
      new Map([[black, 5]]),
    );
    expect(stored).toBe('exists');
    expect(await h.stores.matches.getMatch('match_together_b')).toBeNull();
    expect(await queuedOf(black)).not.toContain('match_together_b');
    expect(await balances()).toEqual(before);
  });

  it('through the match service: a game that cannot be made stops its pair before anything is stored', async () => {
    const before = await queuedOf(black);
    await expect(
      matchServiceFor(h).createTogether({ kind: 'admin' }, [
        { black, white, rated: true },
        { black: white, white: 'bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', rated: true },
      ]),
    ).rejects.toMatchObject({ code: 'bots/not-found' });
    expect(await queuedOf(black)).toEqual(before);
  });

  it('are refused, all of them, when one of their bots retired after it was read', async () => {
    const leaving = (await registerBot(h, { name: 'together-leaving', url: 'http://127.0.0.1:9/' })).id;
    // The caller read it active; it retires before the write.
    await h.stores.bots.retireBot(leaving);
    const before = await balances();
    const stored = await h.stores.matches.createMatches(
      [game('match_together_d', black, white), game('match_together_e', leaving, black)],
      new Map([[black, 1]]),
    );
    expect(stored).toBe('bot-retired');
    expect(await h.stores.matches.getMatch('match_together_d')).toBeNull();
    expect(await h.stores.matches.getMatch('match_together_e')).toBeNull();
    expect(await balances()).toEqual(before);
    // A single match too, a challenge or the admin's.
    expect(await h.stores.matches.createMatch(game('match_single_f', white, leaving))).toBe('bot-retired');
    expect(await h.stores.matches.getMatch('match_single_f')).toBeNull();
    // And one whose bots are active is stored (a resend of it answers `created` again).
    expect(await h.stores.matches.createMatch(game('match_single_g', white, black))).toBe('created');
    expect(await h.stores.matches.createMatch(game('match_single_g', white, black))).toBe('created');
  });

  it("is the arena's alone: a bot's token cannot make matches together", async () => {
    await expect(
      matchServiceFor(h).createTogether({ kind: 'bot', botId: black }, [{ black, white, rated: false }]),
    ).rejects.toBeInstanceOf(PermissionError);
  });
});
