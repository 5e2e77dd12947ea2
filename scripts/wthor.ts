/**
 * The WTHOR game archive (shared/data/wthor/*.wtb, format in shared/data/README.md) and a replay of
 * its games through the public `play` API. Run by scripts/verify-wthor.ts and held to the archive's
 * counts by test/reversi/wthor.test.ts; the parser is pure, file reading stays in `loadWthor`.
 */

import { readdirSync, readFileSync } from 'node:fs';
import {
  initialPosition,
  isGameOver,
  mustPass,
  outcome,
  type Position,
  play,
  rulesOptions,
  squareName,
} from '../src/reversi/index.ts';

export interface WthorGame {
  /** `WTH_1998.wtb#123` (0-based record number). */
  readonly id: string;
  /** Black's recorded final score, empties to the winner. */
  readonly blackScore: number;
  /** Recorded moves as square names; passes are not recorded. */
  readonly moves: readonly string[];
}

const HEADER = 16;
const RECORD = 68;

/** Always `<repo>/../shared/data`: CI clones the repo next to a copy of shared/. */
export function wthorDir(from: string | URL): URL {
  return new URL('wthor/', from);
}

/** Parses one `.wtb` file. Throws on a size that does not match the header or a bad move byte. */
export function parseWthor(bytes: Uint8Array, name: string): WthorGame[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(4, true);
  if (bytes.byteLength !== HEADER + count * RECORD) {
    throw new Error(`${name}: ${bytes.byteLength} bytes for ${count} games`);
  }
  const games: WthorGame[] = [];
  for (let g = 0; g < count; g++) {
    const base = HEADER + g * RECORD;
    const moves: string[] = [];
    for (let i = 0; i < 60; i++) {
      const byte = bytes[base + 8 + i]!;
      if (byte === 0) break;
      const row = Math.floor(byte / 10);
      const column = byte % 10;
      if (row < 1 || row > 8 || column < 1 || column > 8)
        throw new Error(`${name}#${g}: bad move byte ${byte}`);
      moves.push(squareName((row - 1) * 8 + (column - 1)));
    }
    games.push({ id: `${name}#${g}`, blackScore: bytes[base + 6]!, moves });
  }
  return games;
}

/** Every game of every `WTH_*.wtb` file in `dir`, in file order. */
export function loadWthor(dir: URL): WthorGame[] {
  const files = readdirSync(dir)
    .filter((f) => /^WTH_\d{4}\.wtb$/.test(f))
    .sort();
  return files.flatMap((file) => parseWthor(readFileSync(new URL(file, dir)), file));
}

/** Tournament Othello: black first, empties to the winner (the convention of the recorded scores). */
export const WTHOR_RULES = rulesOptions({ firstPlayer: 'black', scoring: 'empties-to-winner' });

export type Replay =
  | { ok: true; finished: boolean; blackScore: number; passes: number }
  | { ok: false; ply: number; reason: string };

/**
 * Replays a game through `play`. A recorded move is played by the side to move unless that side must
 * pass, in which case the pass is played first (passes are not recorded). Any rejected move fails the
 * replay.
 */
export function replayWthorGame(game: WthorGame): Replay {
  let pos: Position = initialPosition(WTHOR_RULES);
  let passes = 0;
  for (const [ply, square] of game.moves.entries()) {
    if (mustPass(pos)) {
      const passed = play(pos, { square: 'pass' }, WTHOR_RULES);
      if (!passed.ok) return { ok: false, ply, reason: passed.error.code };
      pos = passed.position;
      passes++;
    }
    const result = play(pos, { square }, WTHOR_RULES);
    if (!result.ok) return { ok: false, ply, reason: `${pos.toMove} ${square}: ${result.error.code}` };
    pos = result.position;
  }
  return { ok: true, finished: isGameOver(pos), blackScore: outcome(pos, WTHOR_RULES).discs.black, passes };
}

export interface WthorSummary {
  games: number;
  illegal: { id: string; ply: number; reason: string }[];
  finished: number;
  unfinished: number;
  scoreMismatches: { id: string; recorded: number; replayed: number }[];
  passes: number;
}

/** Replays `games` and sums up what agreed with the records and what did not. */
export function verifyWthor(games: readonly WthorGame[]): WthorSummary {
  const summary: WthorSummary = {
    games: 0,
    illegal: [],
    finished: 0,
    unfinished: 0,
    scoreMismatches: [],
    passes: 0,
  };
  for (const game of games) {
    summary.games++;
    const replay = replayWthorGame(game);
    if (!replay.ok) {
      summary.illegal.push({ id: game.id, ply: replay.ply, reason: replay.reason });
      continue;
    }
    summary.passes += replay.passes;
    if (!replay.finished) {
      summary.unfinished++;
      continue;
    }
    summary.finished++;
    if (replay.blackScore !== game.blackScore) {
      summary.scoreMismatches.push({ id: game.id, recorded: game.blackScore, replayed: replay.blackScore });
    }
  }
  return summary;
}
