import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the programs are compiled: one folder below the project's root, as dist/ is, so that
 * src/support/project-root.ts finds openapi.yaml and the web pages from there.
 */
const BUILD_DIR = '.test-build';

/**
 * Compiles src/ and workers/ file by file into .test-build/, once per `vitest run` (its global
 * setup), as tsx would compile each file on load. The child processes the tests start then load
 * plain JavaScript: tsx's loader hooks cost each of them 1–2 s of CPU (docs/testing.md). The
 * README's own commands still run through tsx where a test checks them (npm start, npm run demo).
 */
export function compilePrograms(): Promise<void> {
  // Once per vitest process, though each project's global setup asks (and may load this anew).
  const shared = globalThis as { [COMPILED]?: Promise<void> };
  shared[COMPILED] ??= compile();
  return shared[COMPILED];
}

const COMPILED = Symbol.for('reversi-arena.tests.compiled-programs');

async function compile(): Promise<void> {
  await rm(`${ROOT}${BUILD_DIR}`, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/**/*.ts', 'workers/**/*.ts', 'src/**/*.json'],
    loader: { '.json': 'copy' },
    outbase: '.',
    outdir: BUILD_DIR,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    write: false,
    logLevel: 'error',
  });
  // Without bundling esbuild leaves import paths alone; `./x.ts` becomes `./x.js`, as tsc's
  // rewriteRelativeImportExtensions does for dist/.
  await Promise.all(
    result.outputFiles.map(async (file) => {
      if (file.path.endsWith('.test.js')) return;
      await mkdir(dirname(file.path), { recursive: true });
      await writeFile(file.path, file.text.replace(RELATIVE_TS_IMPORT, '$1$2$3.js$2'));
    }),
  );
}

const RELATIVE_TS_IMPORT = /((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]+?)\.ts\2/g;

/** Node's arguments to run `source` (a path such as `workers/main.ts`) from the compiled copy. */
export function compiledProgram(source: string): string[] {
  return [`${BUILD_DIR}/${source.replace(/\.ts$/, '.js')}`];
}
