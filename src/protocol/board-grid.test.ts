import { describe, expect, it } from 'vitest';
import { boardGrid } from './board-grid.ts';

describe('boardGrid', () => {
  it('draws the rows with coordinates on every side and the last move in brackets', () => {
    const rows = [
      '........',
      '........',
      '....B...',
      '...BB...',
      '...BW...',
      '........',
      '........',
      '........',
    ];
    const grid = boardGrid(rows, 'e3').split('\n');
    expect(grid).toHaveLength(10);
    expect(grid[0]).toBe('     a  b  c  d  e  f  g  h ');
    expect(grid[3]).toBe(' 3   .  .  .  . [B] .  .  .   3');
    expect(grid[5]).toBe(' 5   .  .  .  B  W  .  .  .   5');
    expect(grid[9]).toBe(grid[0]);
  });

  it('marks nothing before the first move', () => {
    expect(boardGrid(Array(8).fill('........'))).not.toContain('[');
  });
});
