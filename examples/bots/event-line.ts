import type { ArenaClosing, MatchFinished, MatchStarted } from '@reversi-arena/client';

/**
 * One line for a person watching a pull bot play, or null for events not worth a line (each turn):
 * who plays whom when a match starts, how it ended, and when the stream is lost or the arena closes.
 */
export function eventLine(event: string, data: unknown): string | null {
  if (event === 'matchStarted') {
    const { matchId, black, white } = data as MatchStarted;
    return `${matchId}: ${black.name} (black) against ${white.name} (white)`;
  }
  if (event === 'matchFinished') {
    const { matchId, status, result } = data as MatchFinished;
    if (status === 'aborted') return `${matchId}: aborted`;
    const winner = result.winner === null ? 'no winner' : `${result.winner} wins`;
    return `${matchId}: ${winner}, ${result.discs.black}–${result.discs.white} (${result.reason})`;
  }
  if (event === 'arenaClosing') {
    const { reconnectAfterMs } = data as ArenaClosing;
    return `the arena is closing; reconnecting in ${reconnectAfterMs / 1000} s`;
  }
  if (event === 'disconnected') return `event stream lost (${String(data)}); reconnecting`;
  return null;
}
