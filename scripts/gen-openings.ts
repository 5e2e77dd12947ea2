/**
 * Picks balanced openings from the WTHOR archive (<repo>/../shared/data/wthor, black first) and writes
 * src/reversi/openings-data.json, which is committed: the arena reads it and never the archive.
 *
 * A candidate is the position after 6 to 10 plies of a recorded game, taken up to the board's 8
 * symmetries (`canonicalKey`) so that a line and its mirror images count as one. It is kept when at
 * least `--min-games` games reached it and the first player (black) scored, on average, within
 * `--band` of one half. Each kept position ships with the move sequence that reached it most often.
 * The output is sorted and its ids hash the canonical position, so a rerun on the same archive writes
 * the same bytes. The file is written as `biome format` would write it, so `npm run lint` stays clean.
 *
 * Usage: npm run gen:openings [-- --data <dir containing wthor/>] [--min-games 50] [--band 0.05]
 */

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { canonicalKey, initialPosition, mustPass, type Position, play } from '../src/reversi/index.ts';
import { loadWthor, WTHOR_RULES, type WthorGame, wthorDir } from './wthor.ts';

const FIRST_PLY = 6;
const LAST_PLY = 10;
const OUT = new URL('../src/reversi/openings-data.json', import.meta.url);

interface Tally {
  games: number;
  points: number; // first player: win 1, draw ½, loss 0
  diff: number; // sum of the first player's final disc differential
  diff2: number; // sum of its square, for the spread
  ply: number;
  lines: Map<string, number>; // move sequence -> games, filled in the second pass for kept keys only
}

interface Stats {
  games: number;
  meanScore: number;
  meanDiff: number;
  spread: number;
}

interface Entry extends Stats {
  id: string;
  moves: string[];
}

const round = (x: number, digits: number) => Number(x.toFixed(digits)) + 0; // + 0 turns -0 into 0

function stats(t: Tally): Stats {
  const mean = t.diff / t.games;
  return {
    games: t.games,
    meanScore: round(t.points / t.games, 3),
    meanDiff: round(mean, 2),
    spread: round(Math.sqrt(Math.max(0, t.diff2 / t.games - mean * mean)), 1),
  };
}

function addResult(t: Tally, game: WthorGame): void {
  const diff = 2 * game.blackScore - 64; // the recorded scores sum to 64 (empties to the winner)
  t.games++;
  t.points += diff > 0 ? 1 : diff === 0 ? 0.5 : 0;
  t.diff += diff;
  t.diff2 += diff * diff;
}

const canonicalOf = new Map<string, string>(); // exact position -> canonical key; many games share one

/**
 * Calls `visit` with the canonical key of the position after each ply FIRST_PLY..LAST_PLY of `game`.
 * Stops at a forced pass: an opening is a plain list of placements, and none of the archive's games
 * passes that early anyway.
 */
function eachEarlyPosition(game: WthorGame, visit: (key: string, ply: number) => void): void {
  let pos: Position = initialPosition(WTHOR_RULES);
  for (let ply = 1; ply <= Math.min(LAST_PLY, game.moves.length); ply++) {
    if (mustPass(pos)) return;
    const result = play(pos, { square: game.moves[ply - 1]! }, WTHOR_RULES);
    if (!result.ok) throw new Error(`${game.id} ply ${ply}: ${result.error.code} (run verify:wthor)`);
    pos = result.position;
    if (ply < FIRST_PLY) continue;
    const exact = `${pos.blackLo} ${pos.blackHi} ${pos.whiteLo} ${pos.whiteHi} ${pos.toMove}`;
    const key = canonicalOf.get(exact) ?? canonicalKey(pos);
    canonicalOf.set(exact, key);
    visit(key, ply);
  }
}

/** The balanced openings of `games` and what the selection saw, in numbers. */
function selectOpenings(games: readonly WthorGame[], minGames: number, band: number) {
  const standard: Tally = { games: 0, points: 0, diff: 0, diff2: 0, ply: 0, lines: new Map() };
  const tallies = new Map<string, Tally>();
  for (const game of games) {
    addResult(standard, game);
    eachEarlyPosition(game, (key, ply) => {
      const t = tallies.get(key) ?? { games: 0, points: 0, diff: 0, diff2: 0, ply, lines: new Map() };
      tallies.set(key, t);
      addResult(t, game);
    });
  }
  const frequent = [...tallies.values()].filter((t) => t.games >= minGames);
  const kept = new Map(
    [...tallies].filter(([, t]) => t.games >= minGames && Math.abs(t.points / t.games - 0.5) <= band),
  );

  // Second pass: the line that reached each kept position most often (ties: the first in text order).
  for (const game of games) {
    eachEarlyPosition(game, (key, ply) => {
      const lines = kept.get(key)?.lines;
      const line = game.moves.slice(0, ply).join(' ');
      lines?.set(line, (lines.get(line) ?? 0) + 1);
    });
  }
  const openings: Entry[] = [...kept].map(([key, t]) => {
    const [line] = [...t.lines].sort(([a, na], [b, nb]) => nb - na || (a < b ? -1 : 1))[0]!;
    const id = `o-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
    return { id, moves: line.split(' '), ...stats(t) };
  });
  openings.sort((a, b) => b.games - a.games || (a.moves.join() < b.moves.join() ? -1 : 1));
  if (new Set(openings.map((o) => o.id)).size !== openings.length)
    throw new Error('two openings share an id');

  const perPly = (list: readonly { ply: number }[]) =>
    Array.from(
      { length: LAST_PLY - FIRST_PLY + 1 },
      (_, i) => list.filter((t) => t.ply === FIRST_PLY + i).length,
    );
  return {
    standard: stats(standard),
    openings,
    positions: perPly([...tallies.values()]),
    frequent: perPly(frequent),
    kept: perPly([...kept.values()]),
  };
}

const WIDTH = 110; // biome.json's lineWidth

/** JSON laid out as biome formats it: a value stays on one line when that line fits, else one entry a line. */
function layout(value: unknown, indent: string, prefix: string, suffix: string): string {
  const flat = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(flat).join(', ')}]`;
    if (v !== null && typeof v === 'object') {
      const fields = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${flat(x)}`);
      return fields.length === 0 ? '{}' : `{ ${fields.join(', ')} }`;
    }
    return JSON.stringify(v);
  };
  const one = `${indent}${prefix}${flat(value)}${suffix}`;
  if (one.length <= WIDTH || value === null || typeof value !== 'object') return one;
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((v, i) => layout(v, inner, '', i < value.length - 1 ? ',' : ''))
    : Object.entries(value).map(([k, v], i, all) =>
        layout(v, inner, `${JSON.stringify(k)}: `, i < all.length - 1 ? ',' : ''),
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return [`${indent}${prefix}${open}`, ...items, `${indent}${close}${suffix}`].join('\n');
}

function spreadOf(xs: readonly number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  return `min ${sorted[0]}, median ${sorted[Math.floor((sorted.length - 1) / 2)]}, max ${sorted.at(-1)}`;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      'min-games': { type: 'string', default: '50' },
      band: { type: 'string', default: '0.05' },
    },
  });
  const data = values.data
    ? pathToFileURL(`${resolve(values.data)}/`)
    : new URL('../../shared/data/', import.meta.url);
  const minGames = Number(values['min-games']);
  const band = Number(values.band);
  if (!Number.isInteger(minGames) || minGames < 1 || !(band >= 0 && band <= 0.5)) {
    throw new Error('--min-games is a whole number >= 1, --band a number in 0..0.5');
  }

  const started = performance.now();
  const games = loadWthor(wthorDir(data));
  const result = selectOpenings(games, minGames, band);
  const file = {
    about:
      'Generated by `npm run gen:openings` (scripts/gen-openings.ts) from the WTHOR archive; do not edit.',
    criteria: {
      plies: [FIRST_PLY, LAST_PLY],
      minGames,
      meanScore: [round(0.5 - band, 3), round(0.5 + band, 3)],
      archiveGames: games.length,
    },
    standard: result.standard,
    openings: result.openings,
  };
  const text = `${layout(file, '', '', '')}\n`;
  writeFileSync(OUT, text);

  const { openings } = result;
  const plies = `plies ${FIRST_PLY}..${LAST_PLY}`;
  console.log(
    `games ${games.length}; standard start: first player's mean score ${result.standard.meanScore}, mean diff ${result.standard.meanDiff}, spread ${result.standard.spread}`,
  );
  console.log(`positions up to symmetry, per ply (${plies}): ${result.positions.join(' / ')}`);
  console.log(`reached by >= ${minGames} games: ${result.frequent.join(' / ')}`);
  console.log(
    `kept, mean score within 0.5 ± ${band}: ${result.kept.join(' / ')} = ${openings.length} openings`,
  );
  if (openings.length > 0) {
    console.log(`games per opening: ${spreadOf(openings.map((o) => o.games))}`);
    console.log(`mean score: ${spreadOf(openings.map((o) => o.meanScore))}`);
    console.log(`mean disc diff: ${spreadOf(openings.map((o) => o.meanDiff))}`);
    console.log(`spread (stddev of disc diff): ${spreadOf(openings.map((o) => o.spread))}`);
  }
  console.log(
    `wrote ${OUT.pathname} (${text.length} bytes) in ${Math.round(performance.now() - started)} ms`,
  );
}

main();
