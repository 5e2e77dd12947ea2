/**
 * A board as a language model reads it best: a grid with its coordinates on every side, one cell a
 * column, the last move's square in brackets. Built from the protocol's `board` rows (rank 1 first,
 * `B` black, `W` white, `.` empty), so it says nothing the rows do not.
 *
 * @example
 * boardGrid(['........', '........', '....B...', '...BB...', '...BW...', '........', '........', '........'], 'e3');
 * //     a  b  c  d  e  f  g  h
 * //  1  .  .  .  .  .  .  .  .   1
 * //  …
 * //  3  .  .  .  . [B] .  .  .   3
 */
export function boardGrid(rows: readonly string[], lastMove: string | null = null): string {
  const files = 'abcdefgh';
  const header = `    ${[...files].map((file) => ` ${file} `).join('')}`;
  const lines = rows.map((row, rank) => {
    const cells = [...row].map((cell, file) =>
      lastMove === `${files[file]}${rank + 1}` ? `[${cell}]` : ` ${cell} `,
    );
    return ` ${rank + 1}  ${cells.join('')}  ${rank + 1}`;
  });
  return [header, ...lines, header].join('\n');
}
