/**
 * The maximum-likelihood fit of the log-strengths: Hunter's MM step, SQUAREM on top of it, and the
 * log-likelihood that decides whether an extrapolation is kept.
 */

import type { Table } from './bt-tallies.ts';

/** Elo points per unit of natural-log strength: rating = 400·log10(π) = ELO_PER_NEPER·ln(π). */
export const ELO_PER_NEPER = 400 / Math.LN10;

/** What the fit needs: the results (virtual draws included) and the connected groups. */
export interface Model {
  readonly table: Table;
  readonly groups: readonly number[][];
  /** Scratch space for e^θ. */
  readonly strength: Float64Array;
}

/**
 * Log-strengths θ by Hunter's MM, accelerated by SQUAREM (Varadhan & Roland 2008). Plain MM
 * crawls when the bots form a long chain of near neighbours (as when pairings follow the
 * rating): thousands of steps there. SQUAREM takes two MM steps, extrapolates along them, and
 * keeps the extrapolation only if one more MM step from it does not lower the likelihood, so the
 * fit still climbs monotonically to the same maximum. One iteration is one such cycle.
 *
 * `start` (log-strengths, one per bot, copied) is where the climb begins, all zeros when left out:
 * the maximum is unique, so the start changes how many iterations it takes, not where it ends.
 */
export function fitLogStrengths(
  model: Model,
  tolerance: number,
  maxIterations: number,
  start?: Float64Array,
): { theta: Float64Array; iterations: number; converged: boolean } {
  const bots = model.table.ids.length;
  let theta = start ? Float64Array.from(start) : new Float64Array(bots);
  const once = new Float64Array(bots);
  const twice = new Float64Array(bots);
  const leap = new Float64Array(bots);
  let next = new Float64Array(bots);
  let current = logLikelihood(model, theta);
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    mmStep(model, theta, once);
    mmStep(model, once, twice);
    let rr = 0;
    let vv = 0;
    for (let i = 0; i < bots; i++) {
      const r = once[i]! - theta[i]!;
      const v = twice[i]! - 2 * once[i]! + theta[i]!;
      rr += r * r;
      vv += v * v;
    }
    let alpha = vv > 0 ? Math.min(-1, -Math.sqrt(rr / vv)) : -1;
    for (;;) {
      for (let i = 0; i < bots; i++) {
        const r = once[i]! - theta[i]!;
        const v = twice[i]! - 2 * once[i]! + theta[i]!;
        leap[i] = theta[i]! - 2 * alpha * r + alpha * alpha * v;
      }
      mmStep(model, leap, next);
      const reached = logLikelihood(model, next);
      // At alpha = -1 the leap is `twice`, so `next` is three plain MM steps: always an ascent.
      if (alpha === -1 || reached >= current - 1e-12 * Math.abs(current)) {
        current = reached;
        break;
      }
      alpha = (alpha - 1) / 2;
      if (alpha > -1.01) alpha = -1;
    }
    let largestStep = 0;
    for (let i = 0; i < bots; i++) largestStep = Math.max(largestStep, Math.abs(next[i]! - theta[i]!));
    [theta, next] = [next, theta];
    if (largestStep * ELO_PER_NEPER <= tolerance) return { theta, iterations: iteration, converged: true };
  }
  return { theta, iterations: maxIterations, converged: false };
}

/**
 * One MM step, π_i ← W_i / Σ_j n_ij / (π_i + π_j), in logs, then each group is shifted to mean 0
 * (the likelihood does not see a common shift; without this it would drift).
 */
function mmStep({ table, groups, strength }: Model, theta: Float64Array, out: Float64Array): void {
  for (let i = 0; i < theta.length; i++) strength[i] = Math.exp(theta[i]!);
  out.fill(0);
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const t = table.n[p]! / (strength[lo]! + strength[hi]!);
    out[lo]! += t;
    out[hi]! += t;
  }
  for (let i = 0; i < out.length; i++) out[i] = Math.log(table.score[i]! / out[i]!);
  for (const group of groups) {
    const mean = meanOf(out, group);
    for (const i of group) out[i]! -= mean;
  }
}

/** How far from its group's mean a starting log-strength may be: e^±40 still sums safely. */
const START_SPREAD = 40;

/**
 * The log-strengths to start a fit from, given ratings in Elo points under any anchor (e.g. the
 * last fit's): each group is centred on its own mean, as the fit keeps it; a bot without a finite
 * rating (new since) starts at its group's mean; a wild value is clamped so that e^θ stays finite.
 */
export function startingLogStrengths(
  ids: readonly string[],
  groups: readonly number[][],
  ratings: ReadonlyMap<string, number>,
): Float64Array {
  const theta = new Float64Array(ids.length);
  const known = new Uint8Array(ids.length);
  const clamp = (x: number, limit: number) => Math.max(-limit, Math.min(limit, x));
  for (const group of groups) {
    let sum = 0;
    let count = 0;
    for (const i of group) {
      const rating = ratings.get(ids[i]!);
      if (rating === undefined || !Number.isFinite(rating)) continue;
      // Bounded before summing, so that no sum of them overflows.
      theta[i] = clamp(rating / ELO_PER_NEPER, 1e6);
      known[i] = 1;
      sum += theta[i]!;
      count++;
    }
    const mean = count > 0 ? sum / count : 0;
    for (const i of group) theta[i] = known[i] === 1 ? clamp(theta[i]! - mean, START_SPREAD) : 0;
  }
  return theta;
}

/** Mean of `values` over the bot indices in `group` (non-empty). */
export function meanOf(values: Float64Array, group: readonly number[]): number {
  let sum = 0;
  for (const i of group) sum += values[i]!;
  return sum / group.length;
}

/** Log-likelihood of the results, virtual draws included. */
function logLikelihood({ table, strength }: Model, theta: Float64Array): number {
  for (let i = 0; i < theta.length; i++) strength[i] = Math.exp(theta[i]!);
  let sum = 0;
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const s = table.loScore[p]!;
    sum +=
      s * theta[lo]! + (table.n[p]! - s) * theta[hi]! - table.n[p]! * Math.log(strength[lo]! + strength[hi]!);
  }
  // A wild extrapolation can overflow exp; NaN would slip past the caller's comparison.
  return Number.isNaN(sum) ? Number.NEGATIVE_INFINITY : sum;
}
