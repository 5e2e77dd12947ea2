import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/support/random.ts';
import {
  type RefColor,
  refGameOver,
  refLegalMoves,
  refLines,
  refMustPass,
  refName,
  refPass,
  refPlay,
  refRows,
  refStart,
} from '../reversi/reference.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { type PullArena, startPullArena } from '../support/pull-arena.ts';
import { pullApi } from './pull-api.ts';

let world: PullArena;
beforeAll(async () => {
  world = await startPullArena();
});
afterAll(() => world.close());

type CaptureRule = 'all' | 'single-direction';

const games: { captureRule: CaptureRule; firstPlayer: RefColor; seed: number }[] = [
  { captureRule: 'all', firstPlayer: 'white', seed: 1 },
  { captureRule: 'all', firstPlayer: 'black', seed: 2 },
  { captureRule: 'single-direction', firstPlayer: 'white', seed: 3 },
  { captureRule: 'single-direction', firstPlayer: 'black', seed: 4 },
];

/**
 * Plays one whole match between two pull bots through the state and action API, both bots driven
 * from here, and holds every state the arena serves or answers to the reference implementation.
 * Under single-direction capture it prefers moves that trap several lines, naming one of them.
 */
async function playWholeMatch(captureRule: CaptureRule, firstPlayer: RefColor, seed: number) {
  const { h, arena } = world;
  const { act, awaitTurn, state } = pullApi(h);
  const tag = `${captureRule}-${firstPlayer}`;
  const bots = {
    black: await registerBot(h, { name: `${tag}-black` }),
    white: await registerBot(h, { name: `${tag}-white` }),
  };
  const id = await createMatch(h, bots.black.id, bots.white.id, {
    rules: { captureRule, firstPlayer, timeLimitMs: 10_000, overageMs: 0 },
  });
  const played = arena.runner.play(id, new AbortController().signal);
  const random = seededRandom(seed);
  const pickOne = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

  let ref = refStart(firstPlayer);
  let namedAmongSeveral = 0;
  while (!refGameOver(ref)) {
    const color = ref.toMove;
    const turn = await awaitTurn(id, bots[color]);
    expect(turn).toMatchObject({ toMove: color, you: color, board: refRows(ref) });
    const legal = refLegalMoves(ref);
    expect([...turn.legalMoves].sort()).toEqual(legal.map(refName).sort());

    const lines = (index: number) => refLines(ref.cells, color, index);
    const several = legal.filter((index) => lines(index).size > 1);
    const single = captureRule === 'single-direction';
    const index = single && several.length > 0 && random() < 0.8 ? pickOne(several) : pickOne(legal);
    const trapped = [...lines(index).keys()];
    // A move trapping several lines must name one; naming the only one is allowed too.
    const direction = single && (trapped.length > 1 || random() < 0.5) ? pickOne(trapped) : undefined;
    if (direction !== undefined && trapped.length > 1) namedAmongSeveral++;

    const square = refName(index);
    const res = await act(id, bots[color], {
      action: square,
      ply: turn.ply,
      ...(direction ? { direction } : {}),
    });
    expect(res.status, `ply ${turn.ply} ${square} ${direction ?? ''}: ${JSON.stringify(res.body)}`).toBe(200);
    ref = refPlay(ref, index, direction).state;
    expect(res.body.board).toEqual(refRows(ref));
    expect(res.body.history[turn.ply - 1]).toEqual({
      ply: turn.ply,
      player: color,
      square,
      ...(direction ? { direction } : {}),
    });
    // Nobody else plays until the test does; only a pass the arena made may follow the move.
    for (const later of res.body.history.slice(turn.ply)) expect(later.square).toBe('pass');
    while (refMustPass(ref)) ref = refPass(ref);
  }

  expect(await played).toBe('finished');
  const final = (await state(id)).body;
  expect(final).toMatchObject({ status: 'finished', toMove: null, board: refRows(ref) });
  const count = (cell: string) => ref.cells.filter((c) => c === cell).length;
  expect(final.result).toMatchObject({
    reason: 'completed',
    discs: { black: count('B'), white: count('W') },
  });
  if (captureRule === 'single-direction') expect(namedAmongSeveral).toBeGreaterThan(0);
}

describe('a match between two pull bots', () => {
  describe.each(games)('under captureRule $captureRule with $firstPlayer first', (game) => {
    it('is played to the end through the API, each answer holding the board the reference has', async () => {
      await playWholeMatch(game.captureRule, game.firstPlayer, game.seed);
    });
  });
});
