/** Where a bot URL points, in the parts undici's `dispatch` takes and the form fault messages name. */
export interface Target {
  /** `http://host:port`, which picks the connection pool. */
  readonly origin: string;
  /** Path and query; the fragment is never sent. */
  readonly path: string;
  readonly href: string;
}

/** A bot URL that can be called, or why it cannot (a one-line message for the `invalid-url` fault). */
export type ParsedTarget =
  | { readonly ok: true; readonly target: Target }
  | { readonly ok: false; readonly message: string };

/**
 * Parses a bot URL and allows only http and https. Pure, so the client memoizes it: a worker calls
 * the same few URLs thousands of times a second and `new URL` was a visible share of each call.
 *
 * @example
 * parseTarget('http://bot.example:8080/move?v=1#x');
 * // { ok: true, target: { origin: 'http://bot.example:8080', path: '/move?v=1', href: '…' } }
 * parseTarget('ftp://bot.example/'); // { ok: false, message: 'only http and https bot URLs are allowed, not ftp:' }
 */
export function parseTarget(url: string): ParsedTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: `the bot URL is not a valid URL: ${url}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, message: `only http and https bot URLs are allowed, not ${parsed.protocol}` };
  }
  return {
    ok: true,
    target: { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, href: parsed.href },
  };
}
