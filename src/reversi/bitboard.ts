/**
 * The bitboard core: move generation, flips and popcount on boards stored as two signed 32-bit halves.
 *
 * Bit `rank * 8 + file` is one square (a1 = bit 0, h1 = bit 7, a8 = bit 56); the low half holds
 * ranks 1-4 (a1..h4), the high half ranks 5-8 (a5..h8). JavaScript has no fast 64-bit integer (BigInt
 * allocates), so every 64-bit shift is spelled out as two 32-bit shifts plus the carry between halves.
 * Results come back through a caller-owned `Int32Array` so that the hot path never allocates.
 *
 * Both the public API (`play`, `legalMoves`) and `perft` call these functions, so perft counts test
 * the engine that games actually run on.
 */

/** Files b-g of every rank: a fill in a direction with an east or west step must not wrap around. */
const INNER = 0x7e7e7e7e;

/**
 * Writes the set of squares where the player owning `p` may place a disc into `out[0]` (low half)
 * and `out[1]` (high half). An empty mask means the player cannot place: it must pass, or the game
 * is over if the opponent cannot place either.
 *
 * The fills follow Edax's `get_some_moves`: per axis, grow runs of opponent discs from the player's
 * discs one step, then two steps at a time (a run is at most 6 long), and the square just past a run
 * is a move if it is empty.
 *
 * @example
 * const out = new Int32Array(2);
 * // start position, black to move (black d5 e4, white d4 e5)
 * legalMoveMask(1 << 28, 1 << 3, 1 << 27, 1 << 4, out); // out = d3, c4, f5, e6
 */
export function legalMoveMask(pl: number, ph: number, ol: number, oh: number, out: Int32Array): void {
  const il = ol & INNER;
  const ih = oh & INNER;
  let ml: number;
  let mh: number;
  let fl: number;
  let fh: number;
  let kl: number;
  let kh: number;

  // East (+1): adding the opponent discs to the ones just east of the player's discs carries through
  // each run and lands on the square after it (a5 and h4 are outside INNER, so no carry crosses ranks).
  ml = (il + (il & (pl << 1))) | 0;
  mh = (ih + (ih & (ph << 1))) | 0;
  // West (-1): a shift by one file never needs the carry between halves, because the square it would
  // carry into (h4) is outside INNER.
  fl = il & (pl >>> 1);
  fh = ih & (ph >>> 1);
  fl |= il & (fl >>> 1);
  fh |= ih & (fh >>> 1);
  kl = il & (il >>> 1);
  kh = ih & (ih >>> 1);
  fl |= kl & (fl >>> 2);
  fh |= kh & (fh >>> 2);
  fl |= kl & (fl >>> 2);
  fh |= kh & (fh >>> 2);
  ml |= fl >>> 1;
  mh |= fh >>> 1;

  // South (+8) and north (-8): every opponent disc may be inside a run.
  fh = oh & ((ph << 8) | (pl >>> 24));
  fl = ol & (pl << 8);
  fh |= oh & ((fh << 8) | (fl >>> 24));
  fl |= ol & (fl << 8);
  kh = oh & ((oh << 8) | (ol >>> 24));
  kl = ol & (ol << 8);
  fh |= kh & ((fh << 16) | (fl >>> 16));
  fl |= kl & (fl << 16);
  fh |= kh & ((fh << 16) | (fl >>> 16));
  fl |= kl & (fl << 16);
  mh |= (fh << 8) | (fl >>> 24);
  ml |= fl << 8;
  fl = ol & ((pl >>> 8) | (ph << 24));
  fh = oh & (ph >>> 8);
  fl |= ol & ((fl >>> 8) | (fh << 24));
  fh |= oh & (fh >>> 8);
  kl = ol & ((ol >>> 8) | (oh << 24));
  kh = oh & (oh >>> 8);
  fl |= kl & ((fl >>> 16) | (fh << 16));
  fh |= kh & (fh >>> 16);
  fl |= kl & ((fl >>> 16) | (fh << 16));
  fh |= kh & (fh >>> 16);
  ml |= (fl >>> 8) | (fh << 24);
  mh |= fh >>> 8;

  // South-east (+9) and north-west (-9).
  fh = ih & ((ph << 9) | (pl >>> 23));
  fl = il & (pl << 9);
  fh |= ih & ((fh << 9) | (fl >>> 23));
  fl |= il & (fl << 9);
  kh = ih & ((ih << 9) | (il >>> 23));
  kl = il & (il << 9);
  fh |= kh & ((fh << 18) | (fl >>> 14));
  fl |= kl & (fl << 18);
  fh |= kh & ((fh << 18) | (fl >>> 14));
  fl |= kl & (fl << 18);
  mh |= (fh << 9) | (fl >>> 23);
  ml |= fl << 9;
  fl = il & ((pl >>> 9) | (ph << 23));
  fh = ih & (ph >>> 9);
  fl |= il & ((fl >>> 9) | (fh << 23));
  fh |= ih & (fh >>> 9);
  kl = il & ((il >>> 9) | (ih << 23));
  kh = ih & (ih >>> 9);
  fl |= kl & ((fl >>> 18) | (fh << 14));
  fh |= kh & (fh >>> 18);
  fl |= kl & ((fl >>> 18) | (fh << 14));
  fh |= kh & (fh >>> 18);
  ml |= (fl >>> 9) | (fh << 23);
  mh |= fh >>> 9;

  // South-west (+7) and north-east (-7).
  fh = ih & ((ph << 7) | (pl >>> 25));
  fl = il & (pl << 7);
  fh |= ih & ((fh << 7) | (fl >>> 25));
  fl |= il & (fl << 7);
  kh = ih & ((ih << 7) | (il >>> 25));
  kl = il & (il << 7);
  fh |= kh & ((fh << 14) | (fl >>> 18));
  fl |= kl & (fl << 14);
  fh |= kh & ((fh << 14) | (fl >>> 18));
  fl |= kl & (fl << 14);
  mh |= (fh << 7) | (fl >>> 25);
  ml |= fl << 7;
  fl = il & ((pl >>> 7) | (ph << 25));
  fh = ih & (ph >>> 7);
  fl |= il & ((fl >>> 7) | (fh << 25));
  fh |= ih & (fh >>> 7);
  kl = il & ((il >>> 7) | (ih << 25));
  kh = ih & (ih >>> 7);
  fl |= kl & ((fl >>> 14) | (fh << 18));
  fh |= kh & (fh >>> 14);
  fl |= kl & ((fl >>> 14) | (fh << 18));
  fh |= kh & (fh >>> 14);
  ml |= (fl >>> 7) | (fh << 25);
  mh |= fh >>> 7;

  out[0] = ml & ~(pl | ol);
  out[1] = mh & ~(ph | oh);
}

/**
 * Counts the set bits of a board (SWAR: sums of 2, 4, then 8 bits, added up by one multiply).
 *
 * @example
 * popcount(0b1011, 1 << 31); // 4
 */
export function popcount(lo: number, hi: number): number {
  lo -= (lo >>> 1) & 0x55555555;
  hi -= (hi >>> 1) & 0x55555555;
  lo = (lo & 0x33333333) + ((lo >>> 2) & 0x33333333);
  hi = (hi & 0x33333333) + ((hi >>> 2) & 0x33333333);
  // Each nibble now holds at most 4 per half, so the two halves can share one byte-wise sum.
  lo = (lo & 0x0f0f0f0f) + ((lo >>> 4) & 0x0f0f0f0f) + (hi & 0x0f0f0f0f) + ((hi >>> 4) & 0x0f0f0f0f);
  return Math.imul(lo, 0x01010101) >>> 24;
}
