/**
 * Replays every game of the WTHOR archive (<repo>/../shared/data/wthor) through the public `play`
 * API and checks that every recorded move is legal and every finished game ends with the recorded
 * score. Prints the counts; exits 1 on any mismatch.
 *
 * Usage: npm run verify:wthor [-- --data <dir containing wthor/>]
 */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadWthor, verifyWthor, wthorDir } from './wthor.ts';

const { values } = parseArgs({ options: { data: { type: 'string' } } });
// By default <repo>/../shared/data, wherever the repo is cloned.
const data = values.data
  ? pathToFileURL(`${resolve(values.data)}/`)
  : new URL('../../shared/data/', import.meta.url);

const started = performance.now();
const games = loadWthor(wthorDir(data));
const summary = verifyWthor(games);
const ms = Math.round(performance.now() - started);

for (const { id, ply, reason } of summary.illegal.slice(0, 20))
  console.log(`illegal: ${id} ply ${ply + 1}: ${reason}`);
for (const { id, recorded, replayed } of summary.scoreMismatches.slice(0, 20)) {
  console.log(`score: ${id} recorded ${recorded}, replayed ${replayed}`);
}
console.log(
  [
    `games ${summary.games}`,
    `legal ${summary.games - summary.illegal.length}`,
    `illegal ${summary.illegal.length}`,
    `finished ${summary.finished}`,
    `stopped early ${summary.unfinished}`,
    `score mismatches ${summary.scoreMismatches.length}`,
    `forced passes ${summary.passes}`,
    `${ms} ms`,
  ].join(', '),
);
const ok = summary.games > 0 && summary.illegal.length === 0 && summary.scoreMismatches.length === 0;
console.log(ok ? 'verify:wthor OK' : 'verify:wthor FAILED');
process.exitCode = ok ? 0 : 1;
