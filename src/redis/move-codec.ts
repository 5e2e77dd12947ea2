import type { Direction } from '../contract/index.ts';
import { type AnyGame, actionChoices } from '../game/index.ts';
import type { MoveRecord } from '../model/records.ts';
import { CorruptRecordError } from '../store/match-store.ts';

/**
 * A match's moves as Redis keeps them: one string, each ply appended to it (APPEND), 2–3 bytes a
 * ply where a JSON list took ~85. Only what a replay cannot tell is stored:
 *
 * - one byte for the square: file (a–p) × 8 + rank (1–8), or 0x7f for a pass; bit 7 set when a
 *   direction byte follows;
 * - the direction byte (its index in `n ne e se s sw w nw`), only for a move that names one, or
 *   for a solo move the colour of its disc as the byte 8 (black) or 9 (white), in the same place;
 * - the latency in ms as an unsigned LEB128 varint (1 byte below 128 ms, 2 below 16 s, …);
 * - an opening ply (played by the arena before the first bot move: never a pass, no direction, no
 *   latency) is the byte 0xff, which no other ply starts with (a pass never names a direction),
 *   then its square byte and no latency: 2 bytes, as many as a quick bot move.
 *
 * The ply number, the player and the flips are not stored: `decodeMoves` replays the game from the
 * squares and asks it, which is how the record was made in the first place.
 */

const PASS = 0x7f;
const HAS_DIRECTION = 0x80;
/** `PASS | HAS_DIRECTION`: free, since the arena's passes name no direction. */
const OPENING = 0xff;
const DIRECTIONS = ['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'] as const satisfies readonly Direction[];
const SQUARE = /^([a-p])([1-8])$/;
/** A solo move's colour byte: this plus its index in COLOURS, past the directions' 0–7. */
const COLOUR_BYTE = 8;
const COLOURS = ['black', 'white'] as const;

export class UnencodableMoveError extends Error {
  override readonly name = 'UnencodableMoveError';
}

/** A stored move record that does not replay (or does not parse): a corrupt record. */
export class CorruptMovesError extends CorruptRecordError {
  override readonly name = 'CorruptMovesError';
}

/**
 * The bytes of one ply. Throws `UnencodableMoveError` for a square outside a1..p8 (p8 itself is
 * the pass code), a direction not on the compass, or a latency that is not a whole number of ms.
 *
 * An opening ply must be a square with no direction and latency 0.
 *
 * @example
 * encodeMove({ square: 'd3', latencyMs: 200 }); // <Buffer 1a c8 01>
 * encodeMove({ square: 'pass', latencyMs: 0 }); // <Buffer 7f 00>
 * encodeMove({ square: 'f4', latencyMs: 0, opening: true }); // <Buffer ff 2b>
 */
export function encodeMove(
  move: Pick<MoveRecord, 'square' | 'direction' | 'colour' | 'latencyMs' | 'opening'>,
): Buffer {
  const { latencyMs } = move;
  if (!Number.isSafeInteger(latencyMs) || latencyMs < 0) {
    throw new UnencodableMoveError(`latency ${latencyMs} is not a whole number of milliseconds`);
  }
  if (move.opening) {
    const code = squareCode(move.square);
    if (code === PASS || move.direction !== undefined || move.colour !== undefined || latencyMs !== 0) {
      throw new UnencodableMoveError(
        `opening ply ${move.square} must be a square without direction or latency`,
      );
    }
    return Buffer.from([OPENING, code]);
  }
  const bytes: number[] = [];
  if (move.square === 'pass') {
    bytes.push(PASS);
  } else {
    const code = squareCode(move.square);
    if (code === PASS) throw new UnencodableMoveError(`square ${move.square} has no code`);
    if (move.colour !== undefined) {
      if (move.direction !== undefined)
        throw new UnencodableMoveError('a move names a direction or a colour');
      const colour = COLOURS.indexOf(move.colour);
      if (colour === -1) throw new UnencodableMoveError(`colour ${move.colour} is no disc's`);
      bytes.push(code | HAS_DIRECTION, COLOUR_BYTE + colour);
    } else if (move.direction === undefined) {
      bytes.push(code);
    } else {
      const direction = DIRECTIONS.indexOf(move.direction as Direction);
      if (direction === -1)
        throw new UnencodableMoveError(`direction ${move.direction} is not on the compass`);
      bytes.push(code | HAS_DIRECTION, direction);
    }
  }
  // Unsigned LEB128, by division: latencies may pass 2^31 ms, beyond JavaScript's bit operators.
  let rest = latencyMs;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

/** A square's code: file (a–p) × 8 + rank (1–8); `PASS` for p8 and for what is no square. */
function squareCode(square: string): number {
  const [, file, rank] = SQUARE.exec(square) ?? [];
  return file === undefined ? PASS : (file.charCodeAt(0) - 97) * 8 + Number(rank) - 1;
}

const squareName = (code: number) => `${String.fromCharCode(97 + Math.floor(code / 8))}${(code % 8) + 1}`;

/** The plies packed in `bytes`, without what a replay tells (player, flips). */
function* unpack(
  bytes: Uint8Array,
): Generator<Pick<MoveRecord, 'square' | 'direction' | 'colour' | 'latencyMs' | 'opening'>> {
  let at = 0;
  const next = () => {
    if (at >= bytes.length) throw new CorruptMovesError(`the packed moves end inside a ply (byte ${at})`);
    return bytes[at++]!;
  };
  while (at < bytes.length) {
    const first = next();
    if (first === OPENING) {
      const code = next();
      if (code >= PASS) throw new CorruptMovesError(`byte ${at - 1} is no opening square`);
      yield { square: squareName(code), latencyMs: 0, opening: true };
      continue;
    }
    let square = 'pass';
    let direction: string | undefined;
    let colour: MoveRecord['colour'];
    if (first !== PASS) {
      square = squareName(first & ~HAS_DIRECTION);
      if (first & HAS_DIRECTION) {
        const extra = next();
        direction = DIRECTIONS[extra];
        colour = COLOURS[extra - COLOUR_BYTE];
        if (direction === undefined && colour === undefined) {
          throw new CorruptMovesError(`byte ${at - 1} is no direction nor colour`);
        }
      }
    }
    let latencyMs = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const byte = next();
      latencyMs += (byte % 0x80) * scale;
      if (byte < 0x80) break;
    }
    yield {
      square,
      ...(direction === undefined ? {} : { direction }),
      ...(colour === undefined ? {} : { colour }),
      latencyMs,
    };
  }
}

/**
 * The full move records of a packed match: each ply replayed with `game` under `options` (the
 * match's rules) for its player and the squares it flipped; opening plies keep `opening: true`.
 * Throws `CorruptMovesError` when the bytes do not parse or a ply does not replay.
 *
 * @example
 * decodeMoves(Buffer.concat([encodeMove({ square: 'd3', latencyMs: 5 })]), reversi, reversi.options());
 * // [{ ply: 1, player: 'black', square: 'd3', flips: ['d4'], latencyMs: 5 }]
 */
export function decodeMoves(bytes: Uint8Array, game: AnyGame, options: unknown): MoveRecord[] {
  const moves: MoveRecord[] = [];
  let position = game.initialState(options);
  for (const { square, direction, colour, latencyMs, opening } of unpack(bytes)) {
    const ply = moves.length + 1;
    const player = game.toMove(position);
    if (square === 'pass') {
      if (!game.mustPass(position)) throw new CorruptMovesError(`ply ${ply} is a pass out of turn`);
      position = game.pass(position);
      moves.push({ ply, player, square, flips: [], latencyMs });
      continue;
    }
    const chosen = actionChoices({ direction, colour });
    const applied = game.apply(position, { action: square, ...chosen }, options);
    if (!applied.ok)
      throw new CorruptMovesError(`ply ${ply} (${square}) does not replay: ${applied.message}`);
    position = applied.state;
    moves.push({
      ply,
      player,
      square,
      ...chosen,
      flips: [...applied.flips],
      latencyMs,
      ...(opening ? { opening } : {}),
    });
  }
  return moves;
}
