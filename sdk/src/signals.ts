/**
 * Runs `request` with a signal of its own that aborts with `signal`. Node's fetch keeps a listener
 * on a request's signal until the request is collected: on a signal that lives as long as the bot,
 * one per move would pile up. Pass the own signal to the call instead of the long-lived one.
 *
 * @example
 * const { error } = await withOwnSignal(stop, (own) =>
 *   arena.POST('/v1/matches/{matchId}/actions', { params: { path: { matchId } }, body, signal: own }),
 * );
 */
export async function withOwnSignal<T>(
  signal: AbortSignal,
  request: (own: AbortSignal) => Promise<T>,
): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}
