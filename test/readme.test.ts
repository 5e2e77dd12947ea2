import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The text of a `## title` section, up to the next `## `. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

describe('the README', () => {
  it('documents every environment variable src/config.ts reads, in its Configuration table', () => {
    const table = section('Configuration');
    const missing = CONFIG_VARIABLES.filter((name) => !table.includes(`| \`${name}\``));
    expect(missing).toEqual([]);
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(40);
  });

  it('documents no variable that src/config.ts does not read', () => {
    const documented = [...section('Configuration').matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((m) => m[1]);
    expect(documented.filter((name) => !CONFIG_VARIABLES.includes(name!))).toEqual([]);
  });

  it('runs its shell commands against $ARENA, set from PORT, so that they work on any port', () => {
    const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const calling = blocks.filter((block) => /curl|npm run bot -- pull/.test(block));
    expect(calling.length).toBeGreaterThan(3);
    for (const block of calling) {
      expect(block).not.toMatch(/localhost:\d+\/v1/);
      if (block.includes('$ARENA')) expect(block).toMatch(/ARENA=http:\/\/localhost:\$\{PORT:-3000\}/);
      for (const line of block.split('\n').filter((l) => /npm run bot -- pull/.test(l))) {
        expect(line).toContain('--arena "$ARENA"');
      }
    }
  });

  it('starts with the two commands of the Quick start and the map of the code', () => {
    const quick = section('Quick start');
    expect(quick).toContain('npm ci\nnpm run demo');
    expect(quick).toContain('npm test');
    expect(section('How it fits together')).toContain('src/reversi/README.md');
  });
});
