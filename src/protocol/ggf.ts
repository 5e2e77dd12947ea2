/**
 * A match as a GGF record: the Generic Game Format of the GGS Othello server
 * (https://skatgame.net/mburo/ggsa/ggf), which Othello programs and game databases read. Pure: the
 * record comes from the match's own fields, never from the clock.
 */

import { gameFor } from '../game/index.ts';
import type { Color, MatchRecord, MoveRecord } from '../model/records.ts';

/** Where GGF says a game was played (`PC`). */
export const GGF_PLACE = 'reversi-arena';

/** A result a win by fault is written with: the whole board, as for a forfeit. */
const FORFEIT_MARGIN = 64;

const CELL: Record<string, string> = { B: '*', W: 'O', '.': '-' };
const SIDE: Record<Color, string> = { black: '*', white: 'O' };
const MOVER: Record<Color, 'B' | 'W'> = { black: 'B', white: 'W' };

/**
 * Why `match` has no faithful GGF record, or null when it has one. GGF knows Othello only, under
 * its standard capture: a single-direction game written as GGF would be read back with other flips.
 *
 * @example
 * ggfUnsupported({ ...match, rules: { ...match.rules, captureRule: 'single-direction' } });
 * // 'GGF has no single-direction capture variant.'
 */
export function ggfUnsupported(match: Pick<MatchRecord, 'game' | 'rules'>): string | null {
  if ((match.game ?? 'reversi') !== 'reversi') return `GGF records Othello only, not ${match.game}.`;
  if (match.rules.captureRule !== 'all') return 'GGF has no single-direction capture variant.';
  return null;
}

/** A property value with GGF's two escapes: `\` and `]` are written after a `\`. */
export function escapeGgf(text: string): string {
  return text.replace(/[\\\]]/g, (found) => `\\${found}`);
}

/** `DT`: the `year.month.day_hour:minute:second.zone` GGS writes, in UTC. */
function ggfDate(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2025-01-31T12:00:00.000Z
  return `${iso.slice(0, 10).replaceAll('-', '.')}_${iso.slice(11, 19)}.UTC`;
}

/** A GGS clock time, `[h:]mm:ss`, with the milliseconds a sub-second limit needs (`00:00.25`). */
function ggfClock(ms: number): string {
  const seconds = Math.floor(ms / 1000) % 60;
  const minutes = Math.floor(ms / 60_000) % 60;
  const hours = Math.floor(ms / 3_600_000);
  const fraction =
    ms % 1000 === 0
      ? ''
      : `.${String(ms % 1000)
          .padStart(3, '0')
          .replace(/0+$/, '')}`;
  const mmss = `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}${fraction}`;
  return hours > 0 ? `${hours}:${mmss}` : mmss;
}

/** A score from black's view with three decimals and its sign (`+12.000`, `-4.000`, `0.000`). */
function ggfScore(diff: number): string {
  return diff > 0 ? `+${diff.toFixed(3)}` : diff === 0 ? '0.000' : diff.toFixed(3);
}

/**
 * `RE`, from black's view: black's count minus white's for a completed game; a win by the other
 * side's fault as the whole board, flagged `t` (timeout) or `r` (any other fault, read as a
 * resignation). Null while there is no result to write: a running match, an abort, a no-show
 * recorded without a winner (before no-shows counted as faults).
 */
function ggfResult(result: MatchRecord['result']): string | null {
  if (result === null) return null;
  if (result.reason === 'completed') return ggfScore(result.discs.black - result.discs.white);
  if (result.winner === null) return null;
  const margin = result.winner === 'black' ? FORFEIT_MARGIN : -FORFEIT_MARGIN;
  return `${ggfScore(margin)}:${result.reason === 'timeout' ? 't' : 'r'}`;
}

/** `B[d3//0.012]`: a move with no evaluation and the seconds the bot took; a pass is `B[PA]`. */
function ggfMove(move: MoveRecord): string {
  const body = move.square === 'pass' ? 'PA' : `${move.square}//${(move.latencyMs / 1000).toFixed(3)}`;
  return `${MOVER[move.player]}[${body}]`;
}

/**
 * A match (finished, running or queued) as one GGF game, `(;` … `;)` on one line: the players and
 * their ratings before the match (rated matches only: an unrated one has no rating at play time),
 * the date it started (else was created), the time control, the start position with the side to
 * move (`O` when white moves first, as under the arena's default rules), every ply in order with
 * the arena's passes as `PA`, and the result once there is one. Throws when `ggfUnsupported` names
 * a reason. See openapi.yaml (`exportMatch`) for each property.
 *
 * @example
 * formatGgf(match, moves);
 * // '(;GM[Othello]PC[reversi-arena]DT[2025.01.31_12:00:00.UTC]PB[alpha]PW[beta]TI[00:05/00:01/]TY[8]
 * //   RE[+12.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- O]W[e3//0.012]…;)'
 */
export function formatGgf(match: MatchRecord, moves: readonly MoveRecord[]): string {
  const unsupported = ggfUnsupported(match);
  if (unsupported !== null) throw new Error(unsupported);
  const game = gameFor(match.game);
  const start = game.initialState(game.options(match.rules));
  const rows = game.boardRows(start).map((row) => [...row].map((cell) => CELL[cell] ?? '-').join(''));
  const result = ggfResult(match.result);
  const properties = [
    'GM[Othello]',
    `PC[${GGF_PLACE}]`,
    `DT[${ggfDate(match.startedAt ?? match.createdAt)}]`,
    `PB[${escapeGgf(match.black.name)}]`,
    `PW[${escapeGgf(match.white.name)}]`,
    ...(match.ratings === null
      ? []
      : [`RB[${match.ratings.black.before.toFixed(2)}]`, `RW[${match.ratings.white.before.toFixed(2)}]`]),
    `TI[${ggfClock(match.rules.overageMs)}/${ggfClock(match.rules.timeLimitMs)}/]`,
    'TY[8]',
    ...(result === null ? [] : [`RE[${result}]`]),
    `BO[8 ${rows.join(' ')} ${SIDE[game.toMove(start)]}]`,
    ...moves.map(ggfMove),
  ];
  return `(;${properties.join('')};)`;
}
