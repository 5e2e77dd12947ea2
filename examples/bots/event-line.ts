interface Side {
  readonly id: string;
  readonly name: string;
}
interface Started {
  readonly matchId: string;
  readonly black: Side;
  readonly white: Side;
}
interface Finished {
  readonly matchId: string;
  readonly result: {
    readonly winner: 'black' | 'white' | null;
    readonly discs: { readonly black: number; readonly white: number };
    readonly reason: string;
  } | null;
}

/**
 * One line for a person watching a pull bot play, or null for events not worth a line (each turn):
 * who plays whom when a match starts, how it ended, and when the stream is lost or the arena closes.
 */
export function eventLine(event: string, data: unknown): string | null {
  if (event === 'matchStarted') {
    const { matchId, black, white } = data as Started;
    return `${matchId}: ${black.name} (black) against ${white.name} (white)`;
  }
  if (event === 'matchFinished') {
    const { matchId, result } = data as Finished;
    if (result === null) return `${matchId}: aborted`;
    const winner = result.winner === null ? 'no winner' : `${result.winner} wins`;
    return `${matchId}: ${winner}, ${result.discs.black}–${result.discs.white} (${result.reason})`;
  }
  if (event === 'arenaClosing') {
    const { reconnectAfterMs } = data as { reconnectAfterMs: number };
    return `the arena is closing; reconnecting in ${reconnectAfterMs / 1000} s`;
  }
  if (event === 'disconnected') return `event stream lost (${String(data)}); reconnecting`;
  return null;
}
