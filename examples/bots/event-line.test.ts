import { describe, expect, it } from 'vitest';
import { eventLine } from './event-line.ts';

describe('eventLine', () => {
  it('names the players when a match starts', () => {
    const line = eventLine('matchStarted', {
      matchId: 'match_1',
      black: { id: 'bot_a', name: 'alpha' },
      white: { id: 'bot_b', name: 'bravo' },
    });
    expect(line).toBe('match_1: alpha (black) against bravo (white)');
  });

  it('gives the winner, the discs and the reason when it ends', () => {
    const won = { winner: 'white', discs: { black: 20, white: 44 }, reason: 'completed' };
    expect(eventLine('matchFinished', { matchId: 'match_1', status: 'finished', result: won })).toBe(
      'match_1: white wins, 20–44 (completed)',
    );
    const noShow = { winner: null, discs: { black: 1, white: 4 }, reason: 'no-show' };
    expect(eventLine('matchFinished', { matchId: 'match_2', status: 'finished', result: noShow })).toBe(
      'match_2: no winner, 1–4 (no-show)',
    );
  });

  it('says an aborted match was aborted', () => {
    const aborted = { winner: null, discs: { black: 0, white: 0 }, reason: 'aborted' };
    expect(eventLine('matchFinished', { matchId: 'match_3', status: 'aborted', result: aborted })).toBe(
      'match_3: aborted',
    );
  });

  it('stays quiet on each turn', () => {
    expect(eventLine('yourTurn', { matchId: 'match_1', ply: 3 })).toBeNull();
  });
});
