/**
 * Perft speed from the start position: runs depths 10 and 11, checks the counts against OEIS
 * A124004, and prints nodes, time and leaves per second. Exits 1 on a wrong count.
 *
 * Usage: npm run bench:perft
 */

import { initialPosition, perft } from '../src/reversi/index.ts';

// OEIS A124004 (Edax convention: a pass is a ply, a finished game has no children).
const EXPECTED: readonly [depth: number, nodes: number][] = [
  [10, 24_571_056],
  [11, 212_258_216],
];

// Warm-up so that the measured runs time optimised code, not the interpreter.
perft(initialPosition(), 8);

let ok = true;
for (const [depth, expected] of EXPECTED) {
  const started = performance.now();
  const nodes = perft(initialPosition(), depth);
  const ms = performance.now() - started;
  const rate = nodes / ms / 1000;
  const verdict = nodes === expected ? 'ok' : `MISMATCH, expected ${expected}`;
  console.log(
    `perft(${depth}) = ${nodes} in ${ms.toFixed(0)} ms: ${rate.toFixed(1)} M leaves/s [${verdict}]`,
  );
  ok &&= nodes === expected;
}
process.exitCode = ok ? 0 : 1;
