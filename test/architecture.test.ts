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
  // The types openapi-typescript generates from openapi.yaml, one file the client package ships too.
  ['sdk'],
  // The rules engine, the rating maths and the contract's names for the wire: no I/O, no packages.
  ['src/reversi', 'src/rating', 'src/contract'],
  // The game seam (the Game interface, the registry by id, Reversi's module) wraps the engine and is
  // pure like it; src/tournament plans schedules, Swiss pairings and standings with src/rating.
  ['src/game', 'src/tournament'],
  // What any process needs and no domain knows of: clocks, randomness, ids, the machine, the logger.
  ['src/support'],
  // The configuration, read from the environment once per process.
  ['src/config'],
  // The domain model: records, errors, faults, what a finished match does to its bots, replay.
  ['src/model'],
  // The wire as bots see it (state, GGF), and the house bots' choosers.
  ['src/protocol', 'src/house'],
  // The store's interfaces, one per aggregate: what the services need, in the model's terms.
  ['src/store'],
  // Connections and waits on Redis; which addresses a bot may have.
  ['src/connections', 'src/net'],
  // The adapters: Redis stores with their scripts and codecs, the BullMQ queue, the push-bot client.
  ['src/redis', 'src/queue', 'src/bot-client'],
  // What a worker plays, and what the arena does for its callers.
  ['src/runner', 'src/arena'],
  // Who plays whom, and the HTTP API.
  ['src/matchmaking', 'src/http'],
  // A process' match workers: one pool on this thread, or pools on threads of their own.
  ['src/pool'],
  // The composition roots: one place that wires each kind of process.
  ['src/wiring'],
  ['src/main', 'src/migrate', 'workers'],
  ['src/demo', 'examples'],
  ['scripts', 'bench'],
];

/** Layers that import no package at all, not even node: built-ins. */
const PURE = [
  'src/reversi',
  'src/rating',
  'src/contract',
  'src/game',
  'src/tournament',
  'src/model',
  'src/protocol',
  'src/store',
];

const SCANNED = ['src', 'workers', 'examples', 'scripts', 'bench'];

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const FLOOR = new Map(FLOORS.flatMap((layers, floor) => layers.map((layer) => [layer, floor + 1] as const)));

interface Import {
  /** Both paths from the repository's root. */
  readonly from: string;
  readonly to: string;
}

/** `src/runner/runner.ts` -> `src/match`, `src/config.ts` -> `src/config`, `workers/main.ts` -> `workers`. */
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

  it('keep the engine, the rating maths, the contract, the game seam, the tournament core, the model and the protocol free of packages, node: built-ins included', () => {
    const packages = files
      .filter((file) => PURE.includes(layerOf(file)))
      .flatMap((file) => specifiersOf(file).map((specifier) => ({ file, specifier })))
      .filter(({ specifier }) => !specifier.startsWith('.'));
    expect(packages).toEqual([]);
  });

  describe('the rule itself', () => {
    it('refuses an import up a floor', () => {
      expect(violation({ from: 'src/redis/redis-bot-store.ts', to: 'src/http/problem.ts' })).toMatch(/above/);
    });

    it('refuses an import between layers on one floor, so two folders never import each other', () => {
      expect(violation({ from: 'src/runner/runner.ts', to: 'src/arena/pull.ts' })).toMatch(/share floor/);
      expect(violation({ from: 'src/arena/pull.ts', to: 'src/runner/runner.ts' })).toMatch(/share floor/);
    });

    it('refuses an import of test/', () => {
      expect(violation({ from: 'scripts/verify-wthor.ts', to: 'test/reversi/wthor.ts' })).toMatch(/test\//);
    });

    it('allows an import down a floor and within a layer', () => {
      expect(violation({ from: 'src/http/app.ts', to: 'src/arena/bots.ts' })).toBeNull();
      expect(violation({ from: 'src/runner/runner.ts', to: 'src/runner/player.ts' })).toBeNull();
    });
  });
});
