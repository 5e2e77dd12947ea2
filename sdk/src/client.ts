import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

/** The typed client: `GET`, `POST`, `PATCH`, `DELETE`… on the paths of openapi.yaml (openapi-fetch). */
export type ArenaClient = Client<paths>;

export interface ArenaClientOptions {
  /** The arena's base URL, e.g. `http://127.0.0.1:3000` (a trailing `/` is fine). */
  readonly baseUrl: string;
  /** A bot's token (`rvb_…`) or the admin token, sent as `Authorization: Bearer …`. */
  readonly token?: string;
  /** A `fetch` of your own (a proxy, a test double); the global one by default. */
  readonly fetch?: (input: Request) => Promise<Response>;
}

/**
 * A client for the arena's API, typed from openapi.yaml: paths, parameters, bodies and answers are
 * checked by the compiler. Each call resolves with `{ data, error, response }`: `data` on a 2xx,
 * `error` (a `Problem` document) otherwise; it rejects only when no answer came (the network).
 *
 * @example
 * const arena = createArenaClient({ baseUrl: 'http://127.0.0.1:3000', token });
 * const { data: me, error } = await arena.GET('/v1/bots/me');
 * if (error) throw new Error(describeProblem(error));
 * await arena.POST('/v1/matches/{matchId}/actions', {
 *   params: { path: { matchId } },
 *   body: { action: 'e3', ply: 1 },
 * });
 */
export function createArenaClient(options: ArenaClientOptions): ArenaClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * A problem answer in one line: `409 matches/over: The match is over.`; just the status when the
 * body is not a problem document.
 *
 * @example
 * const { error, response } = await arena.POST('/v1/matches/{matchId}/actions', …);
 * if (error) console.log(describeProblem(error, response.status));
 */
export function describeProblem(problem: unknown, status?: number): string {
  const doc = (typeof problem === 'object' && problem !== null ? problem : {}) as Record<string, unknown>;
  const code = typeof doc.code === 'string' ? doc.code : undefined;
  const shownStatus = status ?? (typeof doc.status === 'number' ? doc.status : undefined);
  const text = typeof doc.detail === 'string' ? doc.detail : typeof doc.title === 'string' ? doc.title : '';
  const head = [shownStatus, code].filter((part) => part !== undefined).join(' ');
  return code && text ? `${head}: ${text}` : head || 'no answer';
}

/**
 * The arena refused the token (401, or 403 for a token that is not a bot's): no retry will help.
 * Its message names the status and the problem's code: `the arena refused the token (401 auth/invalid-token)`.
 */
export class TokenRefusedError extends Error {
  override readonly name = 'TokenRefusedError';
  constructor(
    readonly status: number,
    readonly problem?: unknown,
  ) {
    const code = (problem as { code?: unknown } | undefined)?.code;
    super(`the arena refused the token (${status}${typeof code === 'string' ? ` ${code}` : ''})`);
  }
}
