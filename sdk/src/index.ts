/**
 * `@reversi-arena/client`: the Reversi Arena's API for bots written in TypeScript.
 *
 * - `createArenaClient`: every path of openapi.yaml, typed (openapi-fetch over the generated `paths`).
 * - `BotEventStream`: a bot's event stream as typed events, resumed by `Last-Event-ID`.
 * - `verifyPushSignature` / `createPushVerifier`: check that a call to a push bot comes from the arena.
 *
 * @example
 * import { BotEventStream, createArenaClient } from '@reversi-arena/client';
 */

export {
  type ArenaClient,
  type ArenaClientOptions,
  createArenaClient,
  describeProblem,
  TokenRefusedError,
} from './client.js';
export {
  BotEventStream,
  type BotEventStreamOptions,
  type Reconnect,
  StreamIdleError,
  sleep,
} from './events.js';
export type { components, operations, paths, webhooks } from './schema.js';
export { withOwnSignal } from './signals.js';
export {
  createPushVerifier,
  type HeadersLike,
  type PushVerifier,
  type SignatureCheck,
  verifyPushSignature,
} from './signature.js';
export { readEventStream, type SseBlock } from './sse.js';
export type {
  ArenaClosing,
  Bot,
  BotAction,
  BotEvent,
  BotState,
  ChallengeAsked,
  ChallengeDeclined,
  ChallengeExpired,
  Color,
  Direction,
  Match,
  MatchFinished,
  MatchResult,
  MatchStarted,
  MatchState,
  Problem,
  PullAction,
  Square,
} from './types.js';
export { BOT_EVENTS } from './types.js';
