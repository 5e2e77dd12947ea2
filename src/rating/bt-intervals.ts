/**
 * Standard errors of the fitted log-strengths from the observed Fisher information; see
 * `bradleyTerryFromTallies` in ./bradley-terry.ts for why analytic intervals and not a bootstrap.
 */

import type { Model } from './bt-fit.ts';

/**
 * The largest group whose variances are exact. The exact way inverts a dense m×m matrix: O(m³)
 * time and m² numbers, about 2 s and 8 MB at 1,000 bots here, but hours and 800 MB at 10,000.
 */
export const EXACT_INTERVALS_MAX_BOTS = 1_000;

/**
 * Var(θ_i − mean of i's group) from the observed information, per group. The information is a
 * weighted graph Laplacian L (weight n_ij p_ij p_ji per pairing), singular along the all-ones
 * vector. For a connected group of m bots, (L + J/m)⁻¹ = L⁺ + J/m (J all ones), so the variances
 * are the diagonal of that inverse less 1/m. When a group has more than EXACT_INTERVALS_MAX_BOTS
 * bots, every variance is the conditional one instead (see `conditionalVariances`).
 */
export function centredVariances(model: Model, theta: Float64Array): Float64Array {
  const { table, groups } = model;
  if (groups.some((group) => group.length > EXACT_INTERVALS_MAX_BOTS))
    return conditionalVariances(model, theta);
  const strength = theta.map(Math.exp);
  const position = new Int32Array(table.ids.length);
  const groupOf = new Int32Array(table.ids.length);
  groups.forEach((group, g) => {
    group.forEach((i, k) => {
      position[i] = k;
      groupOf[i] = g;
    });
  });
  const information = groups.map(({ length: m }) => new Float64Array(m * m).fill(1 / m));
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    const m = groups[groupOf[lo]!]!.length;
    const matrix = information[groupOf[lo]!]!;
    const sum = strength[lo]! + strength[hi]!;
    const w = (table.n[p]! * strength[lo]! * strength[hi]!) / (sum * sum);
    const a = position[lo]!;
    const b = position[hi]!;
    matrix[a * m + a]! += w;
    matrix[b * m + b]! += w;
    matrix[a * m + b]! -= w;
    matrix[b * m + a]! -= w;
  }
  const variance = new Float64Array(table.ids.length);
  groups.forEach((group, g) => {
    const diagonal = inverseDiagonal(information[g]!, group.length);
    group.forEach((i, k) => {
      variance[i] = diagonal[k]! - 1 / group.length;
    });
  });
  return variance;
}

/**
 * The diagonal of A⁻¹ for a symmetric positive-definite m×m matrix A (row-major): Cholesky
 * A = L Lᵀ, U = L⁻¹, A⁻¹ = Uᵀ U, so (A⁻¹)_kk = Σ_i U_ik².
 */
function inverseDiagonal(a: Float64Array, m: number): Float64Array {
  const l = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    let d = a[j * m + j]!;
    for (let k = 0; k < j; k++) d -= l[j * m + k]! ** 2;
    const pivot = Math.sqrt(d);
    l[j * m + j] = pivot;
    for (let i = j + 1; i < m; i++) {
      let s = a[i * m + j]!;
      for (let k = 0; k < j; k++) s -= l[i * m + k]! * l[j * m + k]!;
      l[i * m + j] = s / pivot;
    }
  }
  const u = new Float64Array(m * m);
  const diagonal = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    u[j * m + j] = 1 / l[j * m + j]!;
    diagonal[j]! += u[j * m + j]! ** 2;
    for (let i = j + 1; i < m; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s += l[i * m + k]! * u[k * m + j]!;
      u[i * m + j] = -s / l[i * m + i]!;
      diagonal[j]! += u[i * m + j]! ** 2;
    }
  }
  return diagonal;
}

/**
 * Var(θ_i) as if every other bot's strength were known: 1 / (the information's diagonal), i.e. one
 * over Σ_j n_ij p_ij p_ji. Linear in the pairings, for arenas too big to invert; the intervals are
 * narrower than the exact ones, since they leave out the uncertainty of the opponents' own ratings
 * (little for a bot that met many well-measured opponents, more along a thin chain of neighbours).
 */
function conditionalVariances({ table }: Model, theta: Float64Array): Float64Array {
  const information = new Float64Array(table.ids.length);
  for (let p = 0; p < table.n.length; p++) {
    const lo = table.lo[p]!;
    const hi = table.hi[p]!;
    // p_lo·p_hi = e^(θlo+θhi)/(e^θlo+e^θhi)², written to stay finite for far-apart strengths.
    const d = theta[lo]! - theta[hi]!;
    const w = table.n[p]! / (2 + Math.exp(d) + Math.exp(-d));
    information[lo]! += w;
    information[hi]! += w;
  }
  return information.map((i) => 1 / i);
}
