/** True only when A and B are the same type. */
export type Exact<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * A compile-time check that a hand-written schema and the contract's type agree: `tsc` reports the
 * call whose type argument is not `true`.
 *
 * @example
 * tied<Exact<z.input<typeof createBotBody>, components['schemas']['CreateBotRequest']>>();
 */
export function tied<_Check extends true>(): void {}
