import { z } from 'zod';
import type { components, operations } from '../contract/index.ts';
import { type Exact, tied } from '../contract/tied.ts';
import { DECLINE_REASONS, MATCH_STATUSES } from '../model/records.ts';
import { DIRECTIONS, openingById } from '../reversi/index.ts';
import { ID_PATTERN } from '../support/ids.ts';

/**
 * Request schemas, parsed once at the edge. Each is tied to the type openapi-typescript generates
 * from openapi.yaml: `tsc` fails when a schema and the spec drift apart.
 */
type Schemas = components['schemas'];
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

const botIdSchema = z.string().regex(ID_PATTERN.bot, 'must be a bot id (bot_…)');
const matchIdSchema = z.string().regex(ID_PATTERN.match, 'must be a match id (match_…)');
const botName = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9_-]{3,32}$/, 'must be 3 to 32 of A-Z a-z 0-9 _ -');
const botUrl = z
  .string()
  .max(2048)
  .superRefine((value, ctx) => {
    // URL.canParse first: a string zod's own url check lets through may still make `new URL` throw.
    const url = URL.canParse(value) ? new URL(value) : null;
    if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
    } else if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not carry credentials' });
    }
  });
const color = z.enum(['black', 'white']);
/**
 * A whole number in a query string, written in plain decimal digits: `Number()` would also take
 * `0x10`, `1e2`, `+5` or ` 5`, which no client means.
 */
const queryInteger = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);
const limit = queryInteger(1, 100, 20);
const cursor = z.string().max(200).optional();
const booleanQuery = z
  .enum(['true', 'false'])
  .transform((value) => value === 'true')
  .default(false);

export const botIdParams = z.strictObject({ botId: botIdSchema });
export const matchIdParams = z.strictObject({ matchId: matchIdSchema });

const challengePolicy = z.enum(['accept', 'refuse', 'ask']);

export const createBotBody = z.strictObject({
  name: botName,
  description: z.string().max(500).optional(),
  url: botUrl.optional(),
  acceptsChallenges: z.boolean().optional(),
  challenges: challengePolicy.optional(),
  ratedPlay: z.boolean().default(true),
});
tied<Exact<z.input<typeof createBotBody>, Schemas['CreateBotRequest']>>();

export const updateBotBody = z
  .strictObject({
    name: botName.optional(),
    description: z.string().max(500).nullable().optional(),
    url: botUrl.nullable().optional(),
    acceptsChallenges: z.boolean().optional(),
    challenges: challengePolicy.optional(),
    ratedPlay: z.boolean().optional(),
    slowPool: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'name at least one field to change');
tied<Exact<z.input<typeof updateBotBody>, Schemas['UpdateBotRequest']>>();

export const rulesInput = z.strictObject({
  firstPlayer: color.optional(),
  captureRule: z.enum(['all', 'single-direction']).optional(),
  scoring: z.enum(['discs', 'empties-to-winner']).optional(),
  timeLimitMs: z.number().int().min(1).optional(),
  overageMs: z.number().int().min(0).optional(),
  // Whether the opening can be played under the other options is the game's to say (resolveRules).
  opening: z
    .string()
    .max(64)
    .refine(
      (id) => openingById(id) !== undefined,
      'must be "standard" or the id of a balanced opening (openings in GET /v1/games/reversi)',
    )
    .optional(),
});
tied<Exact<z.input<typeof rulesInput>, Schemas['RulesOptionsInput']>>();

/** A bot by its id or its name: an id is itself a well-formed name, so the name's form takes both. */
const botRef = z.string().regex(/^[A-Za-z0-9_-]{3,32}$/, 'must be a bot id (bot_…) or a bot name');

export const createMatchBody = z.strictObject({
  black: botRef,
  white: botRef,
  rules: rulesInput.optional(),
  rated: z.boolean().default(false),
});
tied<Exact<z.input<typeof createMatchBody>, Schemas['CreateMatchRequest']>>();

export const listBotsQuery = z.strictObject({
  q: z
    .string()
    .max(32)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be a name prefix')
    .optional(),
  includeRetired: booleanQuery,
  limit,
  cursor,
});
tied<Exact<Partial<z.output<typeof listBotsQuery>>, Query<'listBots'>>>();

export const listMatchesQuery = z.strictObject({
  bot: botIdSchema.optional(),
  status: z.enum(MATCH_STATUSES).optional(),
  limit,
  cursor,
});
tied<Exact<Partial<z.output<typeof listMatchesQuery>>, Query<'listMatches'>>>();

export const listLiveMatchesQuery = z.strictObject({ limit });
tied<Exact<Partial<z.output<typeof listLiveMatchesQuery>>, Query<'listLiveMatches'>>>();

export const leaderboardQuery = z.strictObject({
  limit,
  offset: queryInteger(0, 100_000, 0),
  pool: z.enum(['arena', 'slow']).default('arena'),
});
tied<Exact<Partial<z.output<typeof leaderboardQuery>>, Query<'getLeaderboard'>>>();

export const noQuery = z.strictObject({});

export const pullActionBody = z.strictObject({
  action: z.string().regex(/^[a-h][1-8]$/, 'must be a square a1..h8'),
  direction: z.enum(DIRECTIONS).optional(),
  colour: z.enum(['black', 'white']).optional(),
  ply: z.number().int().min(1).optional(),
});
tied<Exact<z.input<typeof pullActionBody>, Schemas['PullAction']>>();

export const matchStateQuery = z.strictObject({
  waitMs: queryInteger(0, 30_000, 0),
});
tied<Exact<Partial<z.output<typeof matchStateQuery>>, Query<'getMatchState'>>>();

export const myMatchesQuery = z.strictObject({
  status: z.enum(MATCH_STATUSES).optional(),
  limit,
  cursor,
});
tied<Exact<Partial<z.output<typeof myMatchesQuery>>, Query<'listMyMatches'>>>();

export const idempotencyKeyHeader = z.string().min(1).max(200).optional();
const UINT64_MAX = 2n ** 64n - 1n;
/** A Redis stream id: two unsigned 64-bit numbers; a larger one would make Redis refuse the read. */
export const lastEventIdHeader = z
  .string()
  .regex(/^\d{1,20}-\d{1,20}$/, 'must be an event id from this stream')
  // zod runs a refinement even after the regex failed: BigInt('nope') would throw (a 500).
  .refine(
    (id) => !/^\d+-\d+$/.test(id) || id.split('-').every((part) => BigInt(part) <= UINT64_MAX),
    'must be an event id from this stream',
  )
  .optional();

export const ratingsQuery = z.strictObject({
  limit: queryInteger(1, 1000, 200),
});
tied<Exact<Partial<z.output<typeof ratingsQuery>>, Query<'getBotRatings'>>>();

const tournamentIdSchema = z.string().regex(ID_PATTERN.tournament, 'must be a tournament id (tournament_…)');
export const tournamentIdParams = z.strictObject({ tournamentId: tournamentIdSchema });

export const createTournamentBody = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(80)
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not hold control characters'),
  format: z.enum(['round-robin', 'swiss', 'gauntlet']),
  bots: z
    .array(botIdSchema)
    .max(64)
    .refine((ids) => new Set(ids).size === ids.length, 'must not name a bot twice')
    .optional(),
  rounds: z.number().int().min(1).max(50).optional(),
  gamesPerPairing: z.union([z.literal(1), z.literal(2)]).default(2),
  openings: z.enum(['standard', 'balanced']),
  rules: rulesInput.optional(),
  rated: z.boolean().default(false),
  minRatedGames: z.number().int().min(0).max(100_000).default(0),
  startsAt: z.iso.datetime({ offset: true }).optional(),
  minEntrants: z.number().int().min(2).max(64).default(2),
});
tied<Exact<z.input<typeof createTournamentBody>, Schemas['CreateTournamentRequest']>>();

export const listTournamentsQuery = z.strictObject({ limit, cursor });
tied<Exact<Partial<z.output<typeof listTournamentsQuery>>, Query<'listTournaments'>>>();

export const createAccountBody = z.strictObject({ name: botName });
tied<Exact<z.input<typeof createAccountBody>, Schemas['CreateAccountRequest']>>();

const ceremonyId = z.string().max(64);
/** The authenticator's JSON as the browser sends it; its shape is the WebAuthn library's to check. */
const webauthnResponse = z.record(z.string(), z.unknown());

export const passkeyRegistrationBody = z.strictObject({
  ceremonyId,
  name: z.string().max(64).optional(),
  response: webauthnResponse,
});
tied<Exact<z.input<typeof passkeyRegistrationBody>, Schemas['PasskeyRegistration']>>();

export const passkeyAssertionBody = z.strictObject({ ceremonyId, response: webauthnResponse });
tied<Exact<z.input<typeof passkeyAssertionBody>, Schemas['PasskeyAssertion']>>();

export const passkeyIdParams = z.strictObject({
  passkeyId: z.string().regex(/^[A-Za-z0-9_-]{16,1366}$/, 'must be a passkey id'),
});

export const declineChallengeBody = z
  .strictObject({ reason: z.enum(DECLINE_REASONS).optional() })
  .default({});
tied<Exact<NonNullable<z.input<typeof declineChallengeBody>>, Schemas['DeclineChallengeRequest']>>();

export const mcpRequestBody = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number().int()]).optional(),
  method: z.string().min(1).max(200),
  params: z.record(z.string(), z.unknown()).optional(),
});
tied<Exact<z.input<typeof mcpRequestBody>, Schemas['McpRequest']>>();

export const soloRequestBody = z.strictObject({
  layout: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1),
  scoring: z.enum(['tokens', 'points']).optional(),
  timeLimitMs: z.number().int().min(1).optional(),
  overageMs: z.number().int().min(0).optional(),
});
tied<Exact<z.input<typeof soloRequestBody>, Schemas['SoloRequest']>>();

export const soloLeaderboardQuery = z.strictObject({
  week: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD (a Monday)')
    .optional(),
});
tied<Exact<Partial<z.output<typeof soloLeaderboardQuery>>, Query<'getSoloLeaderboard'>>>();
