/**
 * The contract of openapi.yaml as TypeScript: the generated types, one file shared with the client
 * package (`npm run gen:types` writes sdk/src/schema.ts; `npm run check:types` fails when it is
 * stale), and one alias for
 * each wire shape that more than the HTTP layer uses. It sits below http, protocol and bot-client, so
 * the bot protocol is nobody's private property; it imports nothing.
 *
 * Aliases carry their schema's name. The HTTP layer reaches the rest through `components` and
 * `operations`.
 *
 * @example
 * import type { BotAction, BotState } from '../contract/index.ts';
 */
import type { components } from '../../sdk/src/schema.ts';

export type { components, operations, paths } from '../../sdk/src/schema.ts';

/** What the arena sends a push bot on its turn, and serves a pull bot (`BotState`). */
export type BotState = components['schemas']['BotState'];

/** What a bot answers on its turn (`BotAction`). */
export type BotAction = components['schemas']['BotAction'];

/** `BotState` plus whose turn it is, the match's status, deadline and result (`MatchState`). */
export type MatchState = components['schemas']['MatchState'];

/** A compass direction on the board, as a move names it under the single-direction rule (`Direction`). */
export type Direction = components['schemas']['Direction'];

/** One call of a push bot with a sample state, judged as a match would judge it (`BotCheck`). */
export type BotCheck = components['schemas']['BotCheck'];
