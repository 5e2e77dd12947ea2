import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path/posix';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The floors of the house, bottom first. A layer is a folder of src/ (a file at the top of src/ is a
 * layer of its own) or a top-level folder. A file may import its own layer and the layers on lower
 * floors; never a layer beside it or above it, so no two folders can import each other. Tests are no
 * floor: they stand above everything, and nothing here may import them.
 */
const FLOORS: readonly (readonly string[])[] = [
  // The rules engine, the rating maths and the types generated from openapi.yaml: no I/O, no packages.
  ['src/reversi', 'src/rating', 'src/contract'],
  // The game seam: the Game interface, the registry by id and Reversi's module. It wraps the engine
  // (so it stands above it) and is pure like it, so every layer that plays or shows a match (the
  // store's codec, the protocol, the match model, the runner, the arena) can ask a game its rules.
  // src/tournament plans schedules, Swiss pairings and standings, and fits strengths with src/rating.
  ['src/game', 'src/tournament'],
  // What the machine offers a process (its usable cores), read by the configuration's defaults, and
  // the error a process cannot start with, which a bad configuration is.
  ['src/machine', 'src/startup-error'],
  // Leaves: each imports no other layer but the machine's.
  [
    'src/clock',
    'src/random',
    'src/errors',
    'src/faults',
    'src/config',
    'src/game-description',
    'src/threads',
    'src/bounded-map',
    'src/project-root',
  ],
  // src/standings plans what a finished match does to its bots, from records (the store writes the plan).
  ['src/ids', 'src/logger', 'src/net', 'src/queue', 'src/standings'],
  // The house bots' choosers; the records and the Redis store.
  ['src/house', 'src/store'],
  // The wire as bots see it (from records and positions), and the client that calls push bots.
  ['src/protocol', 'src/bot-client'],
  // A match from its record: replay, time banks, the state a side sees, judging an answer.
  ['src/match-model'],
  // What a worker plays, and what the arena does for its callers.
  ['src/match', 'src/arena'],
  // Who plays whom, and the HTTP API; then the composition roots and the programs.
  ['src/matchmaking', 'src/http'],
  // A process' match workers: one pool on this thread, or pools on threads of their own.
  ['src/pool'],
  ['src/service'],
  ['src/main', 'workers'],
  ['src/demo', 'examples'],
  ['scripts', 'bench'],
];

/** Layers that import no package at all, not even node: built-ins. */
const PURE = ['src/reversi', 'src/rating', 'src/contract', 'src/standings', 'src/game', 'src/tournament'];

const SCANNED = ['src', 'workers', 'examples', 'scripts', 'bench'];

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const FLOOR = new Map(FLOORS.flatMap((layers, floor) => layers.map((layer) => [layer, floor + 1] as const)));

interface Import {
  /** Both paths from the repository's root. */
  readonly from: string;
  readonly to: string;
}

/** `src/match/runner.ts` -> `src/match`, `src/config.ts` -> `src/config`, `workers/main.ts` -> `workers`. */
function layerOf(path: string): string {
  const [top, second, ...rest] = path.split('/');
  if (top !== 'src' || second === undefined) return top!;
  return rest.length === 0 ? `src/${second.replace(/\.[cm]?[jt]s$/, '')}` : `src/${second}`;
}

/** Every source file under `dir` but tests, which may lean on test/ helpers. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.[cm]?[jt]s$/.test(name) && !/\.test\.[cm]?[jt]s$/.test(name))
    .map((name) => join(dir, name.split('\\').join('/')))
    .sort();
}

/** A file's module specifiers: static imports, `export … from` and `import()`, comments and strings aside. */
function specifiersOf(path: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, path), 'utf8'), true, true);
  return importedFiles.map((file) => file.fileName);
}

/** What is wrong with one import between files of this repository, or null when it points down. */
function violation({ from, to }: Import): string | null {
  const source = layerOf(from);
  const target = layerOf(to);
  if (source === target) return null;
  if (target === 'test') return `${from} imports ${to}: nothing outside test/ imports test/`;
  const below = FLOOR.get(source);
  const above = FLOOR.get(target);
  if (below === undefined) return `${from} is in ${source}, which is on no floor`;
  if (above === undefined) return `${from} imports ${to}, which is on no floor`;
  if (above < below) return null;
  return above === below
    ? `${from} imports ${to}: ${source} and ${target} share floor ${below}`
    : `${from} imports ${to}: ${target} (floor ${above}) is above ${source} (floor ${below})`;
}

const files = SCANNED.flatMap(sourceFiles);
const imports = files.flatMap((from) =>
  specifiersOf(from)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ from, to: join(dirname(from), specifier) })),
);

describe('the layers', () => {
  it('find the imports of every source file', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.length).toBeGreaterThan(300);
  });

  it('place every source file on a floor', () => {
    expect(files.filter((file) => !FLOOR.has(layerOf(file)))).toEqual([]);
  });

  it('point down: a file imports its own layer or one on a lower floor, never test/', () => {
    expect(imports.map(violation).filter((found) => found !== null)).toEqual([]);
  });

  it('keep the engine, the rating maths, the contract, the standings, the game seam and the tournament core free of packages, node: built-ins included', () => {
    const packages = files
      .filter((file) => PURE.includes(layerOf(file)))
      .flatMap((file) => specifiersOf(file).map((specifier) => ({ file, specifier })))
      .filter(({ specifier }) => !specifier.startsWith('.'));
    expect(packages).toEqual([]);
  });

  describe('the rule itself', () => {
    it('refuses an import up a floor', () => {
      expect(violation({ from: 'src/store/redis-store.ts', to: 'src/http/problem.ts' })).toMatch(/above/);
    });

    it('refuses an import between layers on one floor, so two folders never import each other', () => {
      expect(violation({ from: 'src/match/runner.ts', to: 'src/arena/pull.ts' })).toMatch(/share floor/);
      expect(violation({ from: 'src/arena/pull.ts', to: 'src/match/runner.ts' })).toMatch(/share floor/);
    });

    it('refuses an import of test/', () => {
      expect(violation({ from: 'scripts/verify-wthor.ts', to: 'test/reversi/wthor.ts' })).toMatch(/test\//);
    });

    it('allows an import down a floor and within a layer', () => {
      expect(violation({ from: 'src/http/app.ts', to: 'src/arena/bots.ts' })).toBeNull();
      expect(violation({ from: 'src/match/runner.ts', to: 'src/match/player.ts' })).toBeNull();
    });
  });
});
