/**
 * Which discs a placement flips, from per-square ray masks.
 *
 * For each of the 8 directions from a square, the ray is the set of squares up to the board edge.
 * Along a ray the first square that is not an opponent disc decides everything: if it is the mover's
 * disc, the opponent discs before it flip; if it is empty or the edge, nothing does. Rays toward
 * higher bit numbers meet that square as their lowest set bit, rays toward lower ones as their highest.
 */

import { DIRECTION_STEPS } from './squares.ts';

/** Rays indexed `square * 8 + direction`, directions in the order of `DIRECTIONS` (n, ne, e, ..., nw). */
export const RAY_LO = new Int32Array(64 * 8);
/** High halves of the rays in `RAY_LO`. */
export const RAY_HI = new Int32Array(64 * 8);

for (let sq = 0; sq < 64; sq++) {
  for (let d = 0; d < 8; d++) {
    const [df, dr] = DIRECTION_STEPS[d]!;
    let f = (sq & 7) + df;
    let r = (sq >> 3) + dr;
    while (f >= 0 && f < 8 && r >= 0 && r < 8) {
      const bit = r * 8 + f;
      if (bit < 32) RAY_LO[sq * 8 + d]! |= 1 << bit;
      else RAY_HI[sq * 8 + d]! |= 1 << (bit - 32);
      f += df;
      r += dr;
    }
  }
}

/**
 * Writes the discs flipped when the owner of `p` places on `sq` into `out[0]`/`out[1]`: every trapped
 * line through `sq`. Assumes `sq` is empty; an all-zero result means the placement is illegal. To play
 * the move, the mover's discs become `p | flips | bit(sq)` and the opponent's `o ^ flips`.
 *
 * @example
 * const out = new Int32Array(2);
 * // start position, black (d5 e4) places on d3 (bit 19): d4 (bit 27) flips
 * flipMask(1 << 28, 1 << 3, 1 << 27, 1 << 4, 19, out); // out[0] === 1 << 27, out[1] === 0
 */
export function flipMask(pl: number, ph: number, ol: number, oh: number, sq: number, out: Int32Array): void {
  // Squares that end a run of opponent discs: the mover's own discs and the empty squares.
  const el = ~ol;
  const eh = ~oh;
  let fl = 0;
  let fh = 0;
  const base = sq << 3;
  // The eight directions are unrolled by hand: this is the hot path of every move (and of perft),
  // and the unrolled form measured faster than a loop over the ray table.
  // e, se, s, sw run toward higher bits: the first non-opponent square is the lowest set bit.
  {
    const rl = RAY_LO[base + 2]!;
    const xl = rl & el;
    if (xl !== 0) {
      const b = xl & -xl;
      if ((b & pl) !== 0) fl |= rl & (b - 1);
    } else {
      const rh = RAY_HI[base + 2]!;
      const b = rh & eh & -(rh & eh);
      if ((b & ph) !== 0) {
        fl |= rl;
        fh |= rh & (b - 1);
      }
    }
  }
  {
    const rl = RAY_LO[base + 3]!;
    const xl = rl & el;
    if (xl !== 0) {
      const b = xl & -xl;
      if ((b & pl) !== 0) fl |= rl & (b - 1);
    } else {
      const rh = RAY_HI[base + 3]!;
      const b = rh & eh & -(rh & eh);
      if ((b & ph) !== 0) {
        fl |= rl;
        fh |= rh & (b - 1);
      }
    }
  }
  {
    const rl = RAY_LO[base + 4]!;
    const xl = rl & el;
    if (xl !== 0) {
      const b = xl & -xl;
      if ((b & pl) !== 0) fl |= rl & (b - 1);
    } else {
      const rh = RAY_HI[base + 4]!;
      const b = rh & eh & -(rh & eh);
      if ((b & ph) !== 0) {
        fl |= rl;
        fh |= rh & (b - 1);
      }
    }
  }
  {
    const rl = RAY_LO[base + 5]!;
    const xl = rl & el;
    if (xl !== 0) {
      const b = xl & -xl;
      if ((b & pl) !== 0) fl |= rl & (b - 1);
    } else {
      const rh = RAY_HI[base + 5]!;
      const b = rh & eh & -(rh & eh);
      if ((b & ph) !== 0) {
        fl |= rl;
        fh |= rh & (b - 1);
      }
    }
  }
  // w, nw, n, ne run toward lower bits: the first non-opponent square is the highest set bit.
  {
    const rh = RAY_HI[base + 6]!;
    const xh = rh & eh;
    if (xh !== 0) {
      const b = 1 << (31 - Math.clz32(xh));
      if ((b & ph) !== 0) fh |= rh & ~((b << 1) - 1);
    } else {
      const rl = RAY_LO[base + 6]!;
      const xl = rl & el;
      if (xl !== 0) {
        const b = 1 << (31 - Math.clz32(xl));
        if ((b & pl) !== 0) {
          fh |= rh;
          fl |= rl & ~((b << 1) - 1);
        }
      }
    }
  }
  {
    const rh = RAY_HI[base + 7]!;
    const xh = rh & eh;
    if (xh !== 0) {
      const b = 1 << (31 - Math.clz32(xh));
      if ((b & ph) !== 0) fh |= rh & ~((b << 1) - 1);
    } else {
      const rl = RAY_LO[base + 7]!;
      const xl = rl & el;
      if (xl !== 0) {
        const b = 1 << (31 - Math.clz32(xl));
        if ((b & pl) !== 0) {
          fh |= rh;
          fl |= rl & ~((b << 1) - 1);
        }
      }
    }
  }
  {
    const rh = RAY_HI[base + 0]!;
    const xh = rh & eh;
    if (xh !== 0) {
      const b = 1 << (31 - Math.clz32(xh));
      if ((b & ph) !== 0) fh |= rh & ~((b << 1) - 1);
    } else {
      const rl = RAY_LO[base + 0]!;
      const xl = rl & el;
      if (xl !== 0) {
        const b = 1 << (31 - Math.clz32(xl));
        if ((b & pl) !== 0) {
          fh |= rh;
          fl |= rl & ~((b << 1) - 1);
        }
      }
    }
  }
  {
    const rh = RAY_HI[base + 1]!;
    const xh = rh & eh;
    if (xh !== 0) {
      const b = 1 << (31 - Math.clz32(xh));
      if ((b & ph) !== 0) fh |= rh & ~((b << 1) - 1);
    } else {
      const rl = RAY_LO[base + 1]!;
      const xl = rl & el;
      if (xl !== 0) {
        const b = 1 << (31 - Math.clz32(xl));
        if ((b & pl) !== 0) {
          fh |= rh;
          fl |= rl & ~((b << 1) - 1);
        }
      }
    }
  }
  out[0] = fl;
  out[1] = fh;
}
