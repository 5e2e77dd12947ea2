/**
 * FForum endgame positions (shared/data/ffo/*.obf): 64 characters a1..h8 (`X` black, `O` white,
 * `-` empty), the side to move, then the best moves with their exact scores.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { boardRowsFromObf, type Color } from '../../src/reversi/index.ts';

export interface FforumPosition {
  readonly name: string;
  /** Board text for `positionFromBoardText`: rank 1 first. */
  readonly rows: string[];
  readonly toMove: Color;
  /** Moves listed in the file, lower case (`g8`). */
  readonly moves: string[];
}

/** Always `<repo>/../shared/data`: CI clones the repo next to a copy of shared/. */
export const FFO_DIR = new URL('../../../shared/data/ffo/', import.meta.url);

export function parseObfLine(line: string, name: string): FforumPosition {
  const match = /^([XO-]{64}) ([XO]);(.*)$/.exec(line.trim());
  if (!match) throw new Error(`${name}: not an OBF line: ${line}`);
  const [, board, side, rest] = match as unknown as [string, string, string, string];
  const rows = boardRowsFromObf(board);
  const moves = [...rest.matchAll(/([A-H][1-8]):[+-]?\d+/g)].map((m) => m[1]!.toLowerCase());
  return { name, rows, toMove: side === 'X' ? 'black' : 'white', moves };
}

export function loadFforum(): FforumPosition[] {
  const positions: FforumPosition[] = [];
  const files = readdirSync(FFO_DIR).filter((f) => f.endsWith('.obf'));
  for (const file of files.sort()) {
    const lines = readFileSync(new URL(file, FFO_DIR), 'utf8').split('\n');
    for (const [i, line] of lines.entries()) {
      if (line.trim() !== '') positions.push(parseObfLine(line, `${file}:${i + 1}`));
    }
  }
  return positions;
}
