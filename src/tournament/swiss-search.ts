/**
 * The search under a Swiss round: pair everyone, every pair allowed, as close to the Dutch order
 * as the constraints let it, backtracking when a choice leaves the rest unpairable.
 */

/** No step limit: the search runs until it finds a pairing or proves there is none. */
export const UNLIMITED = Number.POSITIVE_INFINITY;

export type SearchOutcome =
  /** Pairs of ranks, the better-ranked first, in the order the higher ones were paired (board order). */
  | { readonly kind: 'paired'; readonly pairs: readonly (readonly [number, number])[] }
  /** No pairing keeps every pair allowed: proven, the search was exhaustive. */
  | { readonly kind: 'none' }
  /** The step limit ran out first: neither found nor proven impossible. */
  | { readonly kind: 'gave-up' };

/**
 * Pairs players 0…n−1 (n even), numbered by rank (0 the best), each with a partner it is
 * `allowed` to meet.
 *
 * The best unpaired player chooses first, from its score group (`points`) in the Dutch order:
 * a group of k pairs its top half against its bottom half, 1st with (k/2+1)th and so on, so the
 * best one's first choice is the group's middle, then down the bottom half, then back up the top
 * half. A player alone in its group (or the odd one left over, which floats down) takes the lower
 * players from the top. The first choice that lets the rest be paired is kept.
 *
 * Exhaustive, with two prunings that keep it small: a set of unpaired players already found
 * unpairable is not searched again, and a set where someone has no allowed partner left is given up
 * at once. The worst case is still exponential, hence `stepLimit` (deterministic: steps, not time).
 *
 * @example
 * // 0 may not meet 2, so 0 takes 3 and 1 takes 2.
 * searchPairing([0, 0, 0, 0], (a, b) => a + b !== 2);
 * // { kind: 'paired', pairs: [[0, 3], [1, 2]] }
 */
export function searchPairing(
  points: readonly number[],
  allowed: (a: number, b: number) => boolean,
  stepLimit: number = UNLIMITED,
): SearchOutcome {
  const n = points.length;
  if (n % 2 === 1) throw new RangeError(`cannot pair an odd number of players (${n})`);
  const can: boolean[][] = Array.from({ length: n }, (_, a) =>
    Array.from({ length: n }, (_, b) => a !== b && allowed(a, b) && allowed(b, a)),
  );
  const unpairable = new Set<string>();
  const pairs: [number, number][] = [];
  let steps = 0;

  const pairRest = (left: readonly number[]): boolean | 'gave-up' => {
    if (left.length === 0) return true;
    const key = left.join(',');
    if (unpairable.has(key)) return false;
    if (++steps > stepLimit) return 'gave-up';
    if (left.some((a) => !left.some((b) => can[a]![b]))) {
      unpairable.add(key);
      return false;
    }
    const [top, ...rest] = left as [number, ...number[]];
    for (const other of choicesOf(top, rest, points)) {
      if (!can[top]![other]) continue;
      pairs.push([top, other]);
      const found = pairRest(rest.filter((p) => p !== other));
      if (found !== false) return found;
      pairs.pop();
    }
    unpairable.add(key);
    return false;
  };

  const found = pairRest(Array.from({ length: n }, (_, k) => k));
  if (found === 'gave-up') return { kind: 'gave-up' };
  return found ? { kind: 'paired', pairs } : { kind: 'none' };
}

/** `top`'s partners in the order it would choose them; `rest` are the other unpaired, best first. */
function choicesOf(top: number, rest: readonly number[], points: readonly number[]): number[] {
  // rest is in rank order, so top's score group is a prefix of it.
  let inGroup = 0;
  while (inGroup < rest.length && points[rest[inGroup]!] === points[top]) inGroup++;
  if (inGroup === 0) return [...rest];
  const k = inGroup + 1; // the group with top
  const half = Math.floor(k / 2);
  // group[j] is rest[j - 1]: the bottom half group[half…k−1], then the top half upwards, then below.
  const bottomHalf = rest.slice(half - 1, inGroup);
  const topHalf = rest.slice(0, half - 1).reverse();
  return [...bottomHalf, ...topHalf, ...rest.slice(inGroup)];
}
