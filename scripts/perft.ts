/**
 * Perft from the start position or a given board; the last line printed is one JSON object:
 * {"depth":N,"nodes":…,"ms":…}.
 *
 * Usage: npm run -s perft -- --depth N [--board <64 chars a1..h8: X black, O white, - empty> --to-move X|O]
 *        [--first white|black]   (start position only; both give the same counts)
 */

import { parseArgs } from 'node:util';
import {
  boardRowsFromObf,
  type Color,
  initialPosition,
  perft,
  positionFromBoardText,
  rulesOptions,
} from '../src/reversi/index.ts';

function fail(message: string): never {
  console.error(`perft: ${message}`);
  process.exit(2);
}

// A board line may start with '-' (an empty a1), which parseArgs would take for an option.
const args = process.argv
  .slice(2)
  .flatMap((arg, i, all) =>
    all[i - 1] === '--board'
      ? []
      : arg === '--board' && all[i + 1] !== undefined
        ? [`--board=${all[i + 1]}`]
        : [arg],
  );

const { values } = parseArgs({
  args,
  options: {
    depth: { type: 'string' },
    board: { type: 'string' },
    'to-move': { type: 'string' },
    first: { type: 'string', default: 'white' },
  },
});

const depth = Number(values.depth);
if (!Number.isInteger(depth) || depth < 0) fail('--depth N (an integer >= 0) is required');

function boardPosition(board: string, side: string | undefined) {
  if (!/^[XO-]{64}$/.test(board)) fail('--board is 64 characters of X, O, - (a1, b1, ..., h8)');
  if (side !== 'X' && side !== 'O') fail('--to-move X|O is required with --board');
  return positionFromBoardText(boardRowsFromObf(board), side === 'X' ? 'black' : 'white');
}

const pos =
  values.board === undefined
    ? initialPosition(rulesOptions({ firstPlayer: values.first as Color }))
    : boardPosition(values.board, values['to-move']);

const started = performance.now();
const nodes = perft(pos, depth);
const ms = Math.round(performance.now() - started);
console.log(JSON.stringify({ depth, nodes, ms }));
