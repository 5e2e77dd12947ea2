import type { components } from './schema.js';

type Schemas = components['schemas'];

/** What the arena sends a push bot on its turn (`BotState`). */
export type BotState = Schemas['BotState'];
/** What a bot answers on its turn (`BotAction`). */
export type BotAction = Schemas['BotAction'];
/** A pull bot's action: a `BotAction` plus the `ply` it answers, so a retried post plays nothing twice. */
export type PullAction = Schemas['PullAction'];
/** `BotState` plus whose turn it is, the status, the deadline and the result (`MatchState`). */
export type MatchState = Schemas['MatchState'];
/** A bot's profile (`Bot`). */
export type Bot = Schemas['Bot'];
/** A match with its moves (`Match`). */
export type Match = Schemas['Match'];
/** How a match ended (`MatchResult`). */
export type MatchResult = Schemas['MatchResult'];
/** An RFC 9457 problem document, with the arena's stable `code` (`Problem`). */
export type Problem = Schemas['Problem'];
/** `black` or `white`. */
export type Color = Schemas['Color'];
/** A square, `a1` to `h8`. */
export type Square = Schemas['Square'];
/** A compass direction, named under the single-direction capture rule. */
export type Direction = Schemas['Direction'];

/** `matchStarted`: a match of the bot begins (`BotMatchStartedEvent`). */
export type MatchStarted = Schemas['BotMatchStartedEvent'];
/** `matchFinished`: a match of the bot ended, its result as this bot may see it (`BotMatchFinishedEvent`). */
export type MatchFinished = Schemas['BotMatchFinishedEvent'];
/** `arenaClosing`: the arena restarts; reconnect after this pause, and nothing is missed (`ArenaClosingEvent`). */
export type ArenaClosing = Schemas['ArenaClosingEvent'];

/** `challenge`: a challenge asks for this bot's answer (`BotChallengeEvent`). */
export type ChallengeAsked = Schemas['BotChallengeEvent'];
/** `challengeDeclined`: this bot's challenge was declined (`BotChallengeDeclinedEvent`). */
export type ChallengeDeclined = Schemas['BotChallengeDeclinedEvent'];
/** `challengeExpired`: a challenge expired unanswered (`BotChallengeExpiredEvent`). */
export type ChallengeExpired = Schemas['BotChallengeExpiredEvent'];

/**
 * One event of a bot's event stream, by its name, as `BotStreamEvent` in openapi.yaml declares it:
 * `event` names it and decides the type of `data`; `id` is the event's stream id (absent on the
 * `yourTurn`s a fresh connection starts with, and on `arenaClosing`), readable on any event.
 */
export type BotEvent = Schemas['BotStreamEvent'] & { readonly id?: string };

/** Every event name, once: a name the contract adds and this list lacks fails to compile. */
const NAMES: { readonly [Name in BotEvent['event']]: true } = {
  yourTurn: true,
  matchStarted: true,
  matchFinished: true,
  challenge: true,
  challengeDeclined: true,
  challengeExpired: true,
  arenaClosing: true,
};

/** The names of the events `BotEventStream` yields; events of other names (a newer arena's) are skipped. */
export const BOT_EVENTS = Object.keys(NAMES) as readonly BotEvent['event'][];
