import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MoveRecord } from '../../src/model/records.ts';
import { encodeMove } from '../../src/redis/move-codec.ts';
import { MoveRecorder } from '../../src/runner/move-recorder.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
let black: string;
let white: string;
beforeAll(async () => {
  h = await createHarness();
  black = (await registerBot(h, { name: 'append-black', url: 'http://127.0.0.1:9/' })).id;
  white = (await registerBot(h, { name: 'append-white', url: 'http://127.0.0.1:9/' })).id;
});
afterAll(() => h.close());

// Squares of a legal opening (white moves first): stored moves are replayed when read.
const move = (ply: number, square: string): MoveRecord => ({
  ply,
  player: ply % 2 === 1 ? 'white' : 'black',
  square,
  flips: [],
  latencyMs: ply,
});

const first = { id: 'run-a', follows: false };
const next = { id: 'run-a', follows: true };
const squares = (moves: readonly MoveRecord[]) => moves.map((m) => m.square);

async function runningMatch(): Promise<string> {
  const id = await createMatch(h, black, white);
  await h.stores.matches.startMatch(id, Date.now());
  return id;
}

describe('appending moves', () => {
  it('answers each move of a batch on its own: appended, ply taken, or match not running', async () => {
    const [one, two] = [await runningMatch(), await runningMatch()];
    const queued = await createMatch(h, black, white);

    // All made in one turn of the event loop, so they are written together.
    const answers = await Promise.all([
      h.stores.matches.appendMove(one, move(1, 'e3'), first),
      h.stores.matches.appendMove(two, move(1, 'f4'), first),
      h.stores.matches.appendMove(one, move(1, 'c5'), first),
      h.stores.matches.appendMove(queued, move(1, 'e3'), first),
      h.stores.matches.appendMove(two, move(2, 'f3'), next),
      h.stores.matches.appendMove(one, move(3, 'g3'), next),
    ]);

    expect(answers).toEqual([true, true, false, false, true, false]);
    expect(await h.stores.matches.getMoves(one)).toEqual([{ ...move(1, 'e3'), flips: ['e4'] }]);
    expect(squares(await h.stores.matches.getMoves(two))).toEqual(['f4', 'f3']);
    expect(await h.stores.matches.getMoves(queued)).toEqual([]);
    expect((await h.stores.matches.getMatch(two))?.moveCount).toBe(2);
  });

  it('refuses a ply already recorded by an earlier batch', async () => {
    const id = await runningMatch();
    expect(await h.stores.matches.appendMove(id, move(1, 'e3'), first)).toBe(true);
    expect(await h.stores.matches.appendMove(id, move(1, 'f4'), next)).toBe(false);
    expect(await h.stores.matches.appendMove(id, move(2, 'f3'), next)).toBe(true);
    expect(squares(await h.stores.matches.getMoves(id))).toEqual(['e3', 'f3']);
  });

  it("refuses a run's ply that would follow another run's, even at the right length", async () => {
    const id = await runningMatch();
    // Another worker took the match over and recorded ply 1 first.
    expect(await h.stores.matches.appendMove(id, move(1, 'f4'), { id: 'run-b', follows: false })).toBe(true);
    // This run sent ply 1 and, before hearing back, ply 2: both must be refused.
    const answers = await Promise.all([
      h.stores.matches.appendMove(id, move(1, 'e3'), first),
      h.stores.matches.appendMove(id, move(2, 'f3'), next),
    ]);
    expect(answers).toEqual([false, false]);
    // A run that starts from the stored record goes on from it.
    expect(await h.stores.matches.appendMove(id, move(2, 'd3'), { id: 'run-c', follows: false })).toBe(true);
    expect(squares(await h.stores.matches.getMoves(id))).toEqual(['f4', 'd3']);
  });

  it("refuses a run's ply when anything else wrote the ply before it", async () => {
    const id = await runningMatch();
    expect(await h.stores.matches.appendMove(id, move(1, 'e3'), first)).toBe(true);
    // A writer that does not name itself (older code, a hand edit) records ply 2.
    await h.redis.append(h.stores.keys.moves(id), encodeMove(move(2, 'f3')));
    await h.redis.hset(h.stores.keys.match(id), 'moveCount', '2');
    expect(await h.stores.matches.appendMove(id, move(3, 'g3'), next)).toBe(false);
    expect(squares(await h.stores.matches.getMoves(id))).toEqual(['e3', 'f3']);
  });

  it('writes the moves of many matches in one batch', async () => {
    const ids = await Promise.all(Array.from({ length: 300 }, () => runningMatch()));
    const answers = await Promise.all(ids.map((id) => h.stores.matches.appendMove(id, move(1, 'e3'), first)));
    expect(answers.every(Boolean)).toBe(true);
    const counts = await Promise.all(ids.map(async (id) => (await h.stores.matches.getMoves(id)).length));
    expect(new Set(counts)).toEqual(new Set([1]));
  });

  it('a recorder that lost a race says so, and sends nothing more', async () => {
    const id = await runningMatch();
    const recorder = new MoveRecorder(h.stores.matches, id);
    expect(await recorder.record(move(1, 'e3'))).toBe(true);
    expect(await recorder.flush()).toBe(true);
    expect(await h.stores.matches.appendMove(id, move(2, 'f3'), { id: 'run-b', follows: false })).toBe(true);

    expect(await recorder.record(move(2, 'd3'))).toBe(true);
    expect(await recorder.flush()).toBe(false);
    expect(await recorder.record(move(3, 'g3'))).toBe(false);
    expect(squares(await h.stores.matches.getMoves(id))).toEqual(['e3', 'f3']);
  });
});
