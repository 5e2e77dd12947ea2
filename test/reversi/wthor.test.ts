import { beforeAll, describe, expect, it } from 'vitest';
import { loadWthor, parseWthor, verifyWthor, type WthorGame, wthorDir } from '../../scripts/wthor.ts';

// <repo>/../shared/data, wherever the repo is cloned (see shared/data/README.md for the format).
const DATA = new URL('../../../shared/data/', import.meta.url);

describe('the WTHOR archive', () => {
  let games: WthorGame[] = [];
  beforeAll(() => {
    games = loadWthor(wthorDir(DATA));
  });

  it('parses all 127,475 games', () => {
    expect(games).toHaveLength(127_475);
    expect(games.every((game) => game.moves[0] === 'f5')).toBe(true);
  });

  describe('replayed through play, black first', () => {
    it('finds every recorded move legal, and every finished game scored as recorded', () => {
      const summary = verifyWthor(games);
      expect(summary.games).toBe(127_475);
      expect(summary.illegal).toEqual([]);
      expect(summary.scoreMismatches).toEqual([]);
      // The archive's own count: 127,062 finished games and 413 records that stop early.
      expect(summary.finished).toBe(127_062);
      expect(summary.unfinished).toBe(413);
      expect(summary.passes).toBeGreaterThan(0);
    }, 60_000);
  });
});

describe('the WTHOR parser', () => {
  const header = new Uint8Array(16);
  new DataView(header.buffer).setUint32(4, 1, true);

  it('reads the score and the moves up to the first 0 byte', () => {
    const record = new Uint8Array(68);
    record.set([0, 0, 0, 0, 0, 0, 33, 40, 56, 66, 0, 65]);
    const [game] = parseWthor(new Uint8Array([...header, ...record]), 'test');
    expect(game).toEqual({ id: 'test#0', blackScore: 33, moves: ['f5', 'f6'] });
  });

  it('rejects a file whose size does not match its header', () => {
    expect(() => parseWthor(header, 'short')).toThrow(/16 bytes for 1 games/);
  });
});
